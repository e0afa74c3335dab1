// The server's tools: names, descriptions, input and output schemas, annotations. Defined
// once, at module load, and shared by every MCP server instance (mcp.ts), by
// `patchloom tools --json` (tool-json.ts) and by the argument checks of the service. Field names
// are the core's JSON-edit names (snake_case), so a harness that does not speak MCP can send the
// same edit objects to `patchloom apply --format edits`.
import * as z from 'zod'

const workspace = z
  .string()
  .min(1)
  .optional()
  .describe('Workspace name; may be left out when the server serves one workspace.')
const path = z
  .string()
  .min(1)
  .describe('File path, relative to the workspace root (or absolute inside it).')
const hash = z
  .string()
  .regex(/^sha256:[0-9a-f]{64}$/)
  .describe('A content_hash returned by read_file or by a write.')
const requestId = z
  .string()
  .optional()
  .describe(
    "This call's id, the client's X-Request-Id or one the server made: quote it when reporting a problem.",
  )
const dryRun = z.boolean().optional().describe('Verify and report the diff; write nothing.')
const diagnostics = z
  .boolean()
  .optional()
  .describe('Report the language-server errors the change introduced and resolved.')
const rebase = z
  .boolean()
  .optional()
  .describe(
    'With expected_hash: if the file changed since, land the edit anyway when its text still matches in exactly one place the other change did not touch.',
  )

/** One edit's fields, as the core's JSON edits take them (src/parse/edits.ts). */
const editFields = {
  mode: z
    .enum(['replace', 'insert', 'replace_range', 'delete_range'])
    .optional()
    .describe(
      'replace (the default): old_string -> new_string; insert: new_string before/after the line holding anchor, or after line after_line; replace_range / delete_range: lines start_line..end_line.',
    ),
  old_string: z
    .string()
    .optional()
    .describe(
      'Exact text to replace; must match once unless replace_all, expected_matches or occurrence says otherwise. Empty creates a missing file.',
    ),
  new_string: z.string().optional().describe('Replacement (or inserted) text.'),
  replace_all: z.boolean().optional().describe('Replace every match.'),
  expected_matches: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('Replace all matches, and refuse unless there are exactly this many.'),
  occurrence: z
    .number()
    .int()
    .optional()
    .describe('Pick one of several matches: 1 first, 2 second, -1 last.'),
  regex: z
    .boolean()
    .optional()
    .describe('old_string is a JavaScript regular expression; new_string may use $1, $<name>.'),
  flags: z
    .string()
    .regex(/^[imsuv]*$/)
    .optional()
    .describe(
      'regex: flags from i, m, s, u, v (g is implied); without m, ^ and $ are the ends of the file.',
    ),
  strict: z
    .boolean()
    .optional()
    .describe('Exact match only: no whitespace or punctuation folding.'),
  tolerant_whitespace: z
    .boolean()
    .optional()
    .describe('When matching, a tab counts as four spaces.'),
  allow_rewrite: z
    .boolean()
    .optional()
    .describe('Allow a small old_string whose new_string rewrites most of the file.'),
  anchor: z.string().optional().describe('insert: text of the line to insert next to.'),
  position: z
    .enum(['before', 'after'])
    .optional()
    .describe('insert: before or after the anchor line.'),
  after_line: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('insert: put new_string after this line (1-based; 0 = before the first line).'),
  start_line: z.number().int().min(1).optional().describe('First line of the range (1-based).'),
  end_line: z.number().int().min(1).optional().describe('Last line of the range (inclusive).'),
}

const edit = z.strictObject(editFields)
const fileEdit = z.strictObject({ path, ...editFields, expected_hash: hash.optional() })

const warning = z.object({
  code: z.string(),
  message: z.string(),
  path: z.string().optional(),
})

const diagnostic = z.object({
  path: z.string(),
  line: z.number(),
  column: z.number(),
  severity: z.string(),
  message: z.string(),
  source: z.string().optional(),
  code: z.string().optional(),
})

const diagnosticsReport = z.object({
  introduced: z.array(diagnostic),
  resolved: z.array(diagnostic),
  settled: z.boolean(),
  waited_ms: z.number(),
})

const writeOutput = z.object({
  dry_run: z.boolean(),
  summary: z
    .string()
    .describe('One line per file: M path (+added -removed), A path, D path, R old -> new.'),
  transaction: z.string().optional().describe('Journal transaction id (for undo).'),
  diffs_omitted: z
    .number()
    .optional()
    .describe(
      'Changed files whose diff is left out (past 256 KiB of diff text, or a patch over 256 KiB); their counts and hashes are given.',
    ),
  files: z.array(
    z.object({
      path: z.string(),
      op: z.enum(['add', 'update', 'delete', 'move', 'copy']),
      from: z.string().optional(),
      content_hash: z.string().nullable().describe('Hash after the change; null when deleted.'),
      previous_hash: z.string().nullable(),
      additions: z.number(),
      deletions: z.number(),
      diff: z.string(),
      rebased_from: z
        .string()
        .optional()
        .describe('The edit was made against this hash and rebased over a change made since.'),
    }),
  ),
  warnings: z.array(warning),
  diagnostics: diagnosticsReport.optional(),
  request_id: requestId,
})

export interface ToolDef {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly input: z.ZodObject
  readonly output: z.ZodObject
  readonly annotations: {
    readonly readOnlyHint: boolean
    readonly destructiveHint: boolean
    readonly idempotentHint: boolean
    readonly openWorldHint: false
  }
}

const readOnly = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const
const writes = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
} as const

export const TOOLS = [
  {
    name: 'read_file',
    title: 'Read file',
    description:
      'Read a text file with 1-based line numbers (a tab after each number). Returns its content_hash: pass it as expected_hash to edit or overwrite the file safely.',
    input: z.strictObject({
      workspace,
      path,
      offset: z.number().int().min(1).optional().describe('First line to return (1-based).'),
      limit: z.number().int().min(1).optional().describe('Lines to return (default 2000).'),
    }),
    output: z.object({
      path: z.string(),
      content_hash: z.string(),
      content: z.string().describe('The lines, each as "<number>\\t<text>".'),
      start_line: z.number(),
      end_line: z.number(),
      total_lines: z.number(),
      more: z.boolean().describe('Lines remain after end_line.'),
      request_id: requestId,
    }),
    annotations: readOnly,
  },
  {
    name: 'edit_file',
    title: 'Edit file',
    description:
      "Edit one file: old_string/new_string (str_replace style), insert at an anchor line, or replace/delete a line range; several edits in `edits` apply in order, all or nothing. The text must match exactly once (whitespace differences are tolerated; new lines take the file's indentation, quotes and line endings). Returns the diff and the new content_hash.",
    input: z.strictObject({
      workspace,
      path,
      ...editFields,
      edits: z
        .array(edit)
        .min(1)
        .optional()
        .describe(
          'Several edits to this file, applied in order (instead of the single-edit fields).',
        ),
      expected_hash: hash
        .optional()
        .describe(
          'Refuse (FILE_HASH_MISMATCH) if the file is no longer at this hash; the refusal shows the file as it is now.',
        ),
      rebase,
      dry_run: dryRun,
      diagnostics,
    }),
    output: writeOutput,
    annotations: writes,
  },
  {
    name: 'multi_edit',
    title: 'Edit several files',
    description:
      'Edits across several files in one transaction: every edit is verified before anything is written, and either all land or none.',
    input: z.strictObject({
      workspace,
      edits: z
        .array(fileEdit)
        .min(1)
        .describe('Edits, each naming its file; edits to one file apply in order.'),
      rebase,
      dry_run: dryRun,
      diagnostics,
    }),
    output: writeOutput,
    annotations: writes,
  },
  {
    name: 'apply_patch',
    title: 'Apply patch',
    description:
      'Apply a patch: a Codex "*** Begin Patch" patch, a unified diff (git diff), or SEARCH/REPLACE blocks; the format is detected. All files or none.',
    input: z.strictObject({
      workspace,
      patch: z.string().min(1).describe('The patch text.'),
      format: z.enum(['auto', 'codex', 'unified', 'search-replace']).optional(),
      binary_without_data: z
        .enum(['refuse', 'skip'])
        .optional()
        .describe(
          'A unified diff\'s "Binary files A and B differ" entries without data: refuse (default), or skip them and apply the rest, with a warning per skipped path.',
        ),
      dry_run: dryRun,
      diagnostics,
    }),
    output: writeOutput,
    annotations: writes,
  },
  {
    name: 'write_file',
    title: 'Write file',
    description:
      'Create a file, or overwrite one (give expected_hash, or read it first). Writes the content byte for byte.',
    input: z.strictObject({
      workspace,
      path,
      content: z.string().describe('The whole new content.'),
      expected_hash: hash
        .optional()
        .describe('Refuse (FILE_HASH_MISMATCH) if the file is no longer at this hash.'),
      dry_run: dryRun,
      diagnostics,
    }),
    output: writeOutput,
    annotations: writes,
  },
  {
    name: 'undo',
    title: 'Undo',
    description:
      "Undo this agent's last change (or the named transaction): the files go back to their state before it, unless they changed since (UNDO_CONFLICT).",
    input: z.strictObject({
      workspace,
      transaction: z
        .string()
        .min(1)
        .optional()
        .describe("Transaction id from a write; default: this agent's last one."),
    }),
    output: z.object({
      transaction: z.string(),
      undone: z.string(),
      summary: z.string(),
      files: z.array(
        z.object({
          path: z.string(),
          op: z.enum(['restore', 'remove']),
          content_hash: z.string().nullable(),
          previous_hash: z.string().nullable(),
        }),
      ),
      request_id: requestId,
    }),
    annotations: writes,
  },
  {
    name: 'diagnostics',
    title: 'Diagnostics',
    description: 'Language-server diagnostics (errors by default) of files as they are on disk.',
    input: z.strictObject({
      workspace,
      paths: z.array(path).min(1),
    }),
    output: z.object({
      diagnostics: z.array(diagnostic),
      settled: z.boolean(),
      waited_ms: z.number(),
      request_id: requestId,
    }),
    annotations: readOnly,
  },
] as const satisfies readonly ToolDef[]

export type ToolName = (typeof TOOLS)[number]['name']

/** The error shape in every failed tool result's structuredContent. */
export const toolErrorSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    hint: z.string(),
    retryable: z.boolean(),
    path: z.string().optional(),
    current_hash: z.string().optional(),
    candidates: z
      .array(z.object({ line: z.number(), score: z.number(), preview: z.string() }))
      .optional(),
    rebase_possible: z
      .boolean()
      .optional()
      .describe(
        'FILE_HASH_MISMATCH: resending the same edits with rebase: true may land them (string-anchored edits against a version the server remembers).',
      ),
    current: z
      .object({
        path: z.string(),
        content_hash: z.string(),
        content: z.string(),
        start_line: z.number(),
        end_line: z.number(),
        total_lines: z.number(),
        more: z.boolean(),
      })
      .optional()
      .describe(
        "FILE_HASH_MISMATCH: the file as it is now, as read_file returns it (UTF-8 text of at most 64 KiB and 2,000 lines), counted as this agent's read.",
      ),
  }),
  request_id: requestId,
})
