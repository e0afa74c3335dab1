// Shared by the OpenAI adapter's tests: a temporary workspace with an engine, content hashes,
// a scripted fetch for the OpenAI client that answers responses.create with scripted Responses
// payloads and checks each request's input, and CASES: apply_patch calls with the exact outputs
// the model must get back and the files after, which the Responses API loop and the Agents SDK
// Runner both run.
import { createHash } from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createEngine, type Engine } from '../../../src/index.js'

export interface TestWorkspace {
  readonly root: string
  readonly engine: Engine
  /** The file's bytes as text, or null when it does not exist. */
  read(rel: string): Promise<string | null>
  close(): Promise<void>
}

export async function workspace(files: Readonly<Record<string, string>>): Promise<TestWorkspace> {
  const root = await mkdtemp(path.join(tmpdir(), 'patchloom-openai-'))
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true })
    await writeFile(path.join(root, rel), text)
  }
  const engine = createEngine({ root, workers: false, durability: 'fast' })
  return {
    root,
    engine,
    read: (rel) => readFile(path.join(root, rel), 'utf8').catch(() => null),
    close: async () => {
      await engine.close()
      await rm(root, { recursive: true, force: true })
    },
  }
}

export function hashOf(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`
}

/** The newest transaction's id (the one a just-committed write made). */
export async function lastTransaction(engine: Engine): Promise<string> {
  const [newest] = await engine.transactions()
  if (newest === undefined) throw new Error('no transaction in the journal')
  return newest.id
}

/** One model turn: the output items it answers with, and the input it expects to receive. */
export interface ScriptStep {
  /** The exact `input` of the request this step answers (called when the request arrives). */
  readonly expectInput?: () => unknown | Promise<unknown>
  readonly output: readonly unknown[]
}

/**
 * A fetch for `new OpenAI({ fetch })` that plays `steps` in order. A request whose input is not
 * the step's expected one is answered with a 400, so the client call rejects, and recorded.
 */
export function scriptedFetch(steps: readonly ScriptStep[]): {
  fetch: typeof fetch
  requests: Record<string, unknown>[]
  /** Each request whose input was not the expected one (the test asserts there are none). */
  mismatches: { expected: unknown; received: unknown }[]
} {
  const requests: Record<string, unknown>[] = []
  const mismatches: { expected: unknown; received: unknown }[] = []
  const scripted = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const body = JSON.parse(String(init?.body)) as Record<string, unknown>
    requests.push(body)
    const step = steps[requests.length - 1]
    if (!String(url).endsWith('/responses') || step === undefined) {
      return json(400, { error: { message: `unscripted request ${requests.length} to ${url}` } })
    }
    const expected = await step.expectInput?.()
    if (step.expectInput !== undefined && !isDeepStrictEqual(body['input'], expected)) {
      mismatches.push({ expected, received: body['input'] })
      return json(400, {
        error: { message: `request ${requests.length}: input differs from the script` },
      })
    }
    return json(200, {
      id: `resp_${requests.length}`,
      object: 'response',
      created_at: 0,
      status: 'completed',
      model: String(body['model']),
      output: step.output,
      parallel_tool_calls: true,
      tool_choice: 'auto',
      tools: body['tools'] ?? [],
      error: null,
      incomplete_details: null,
      instructions: null,
      metadata: {},
      temperature: null,
      top_p: null,
    })
  }
  return { fetch: scripted as typeof fetch, requests, mismatches }
}

function json(status: number, value: unknown): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { 'content-type': 'application/json' },
  })
}

/** An assistant message item, the turn that ends a loop. */
export function message(text: string): Record<string, unknown> {
  return {
    type: 'message',
    id: 'msg_1',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text, annotations: [] }],
  }
}

/** An apply_patch operation as both loops' SDKs spell it. */
export type CaseOperation =
  | { readonly type: 'create_file' | 'update_file'; readonly path: string; readonly diff: string }
  | { readonly type: 'delete_file'; readonly path: string }

/**
 * One apply_patch call of a case and the output the model must get back for it: `completed`
 * (given the transaction the call landed in) or `failed`.
 */
export type CaseCall = { readonly id: string; readonly operation: CaseOperation } & (
  { readonly completed: (tx: string) => string } | { readonly failed: string }
)

/** Calls the model makes in one turn, the files before, and each file's bytes after (null: gone). */
export interface PatchCase {
  readonly title: string
  readonly files: Readonly<Record<string, string>>
  readonly calls: readonly CaseCall[]
  readonly after: Readonly<Record<string, string | null>>
}

/**
 * The outputs the model must receive for `calls` once they have run, each built by `item` (the
 * loop's spelling of an apply_patch_call_output); each landed call has its own transaction, in
 * order (the newest transaction is the last call's).
 */
export async function caseOutputs<T>(
  engine: Engine,
  calls: readonly CaseCall[],
  item: (id: string, status: 'completed' | 'failed', output: string) => T,
): Promise<T[]> {
  const txs = (await engine.transactions()).map((t) => t.id).reverse()
  let landed = 0
  return calls.map((c) =>
    'completed' in c
      ? item(c.id, 'completed', c.completed(txs[landed++] ?? '(none)'))
      : item(c.id, 'failed', c.failed),
  )
}

/** What a case leaves: each file of its `after` as it is on disk, and how many transactions. */
export async function stateAfter(
  w: TestWorkspace,
  c: PatchCase,
): Promise<{ files: Record<string, string | null>; transactions: number }> {
  const files: Record<string, string | null> = {}
  for (const rel of Object.keys(c.after)) files[rel] = await w.read(rel)
  return { files, transactions: (await w.engine.transactions()).length }
}

/** What a case must leave: its `after`, and one transaction for each call that landed. */
export function expectedState(c: PatchCase): {
  files: Readonly<Record<string, string | null>>
  transactions: number
} {
  return { files: c.after, transactions: c.calls.filter((k) => 'completed' in k).length }
}

/** The cases as one turn: their files and calls together, the calls renumbered c1, c2, ... */
export function oneTurn(...cases: readonly PatchCase[]): PatchCase {
  const calls = cases.flatMap((c) => c.calls).map((c, i) => ({ ...c, id: `c${i + 1}` }))
  return {
    title: cases.map((c) => c.title).join('; '),
    files: Object.assign({}, ...cases.map((c) => c.files)),
    calls,
    after: Object.assign({}, ...cases.map((c) => c.after)),
  }
}

const TWO_FUNCTIONS = 'function a() {\n  return 1\n}\n\nfunction b() {\n  return 1\n}\n'
const HINTED = 'function a() {\n  return 1\n}\n\nfunction b() {\n  return 2\n}\n'
const OUTSIDE =
  'is outside the workspace root.\nhint: Use paths relative to the workspace root that stay inside it.'
const ONE_FILE_ONLY =
  'hint: Send the diff of this one file only, with no *** line but *** End of File; make each other file change a call of its own.'

/** The cases both loops run: the Responses API loop one by one, the Agents SDK Runner grouped. */
export const CASES = {
  create: {
    title: 'creates a file from its + lines, each a whole line',
    files: {},
    calls: [
      {
        id: 'c1',
        operation: {
          type: 'create_file',
          path: 'src/new.ts',
          diff: '+export const a = 1\n+\n+export const b = 2',
        },
        completed: (tx) =>
          [
            'A src/new.ts',
            `content_hash src/new.ts: ${hashOf('export const a = 1\n\nexport const b = 2\n')}`,
            `transaction ${tx}`,
            '',
            'diff --git a/src/new.ts b/src/new.ts',
            'new file mode 100644',
            '--- /dev/null',
            '+++ b/src/new.ts',
            '@@ -0,0 +1,3 @@',
            '+export const a = 1',
            '+',
            '+export const b = 2',
          ].join('\n'),
      },
    ],
    after: { 'src/new.ts': 'export const a = 1\n\nexport const b = 2\n' },
  },
  update: {
    title: 'updates a file without a hint: the context places the hunk',
    files: { 'f.ts': TWO_FUNCTIONS },
    calls: [
      {
        id: 'c1',
        operation: {
          type: 'update_file',
          path: 'f.ts',
          diff: ' function a() {\n-  return 1\n+  return 10\n }\n',
        },
        completed: (tx) =>
          [
            'M f.ts (+1 -1)',
            `content_hash f.ts: ${hashOf(TWO_FUNCTIONS.replace('return 1', 'return 10'))}`,
            `transaction ${tx}`,
            '',
            'diff --git a/f.ts b/f.ts',
            '--- a/f.ts',
            '+++ b/f.ts',
            '@@ -1,5 +1,5 @@',
            ' function a() {',
            '-  return 1',
            '+  return 10',
            ' }',
            ' ',
            ' function b() {',
          ].join('\n'),
      },
    ],
    after: { 'f.ts': TWO_FUNCTIONS.replace('return 1', 'return 10') },
  },
  hint: {
    title: 'updates a file with an @@ hint: the hint picks the second function',
    files: { 'h.ts': TWO_FUNCTIONS },
    calls: [
      {
        id: 'c1',
        operation: {
          type: 'update_file',
          path: 'h.ts',
          diff: '@@ function b() {\n-  return 1\n+  return 2\n }\n',
        },
        completed: (tx) =>
          [
            'M h.ts (+1 -1)',
            `content_hash h.ts: ${hashOf(HINTED)}`,
            `transaction ${tx}`,
            '',
            'diff --git a/h.ts b/h.ts',
            '--- a/h.ts',
            '+++ b/h.ts',
            '@@ -3,5 +3,5 @@',
            ' }',
            ' ',
            ' function b() {',
            '-  return 1',
            '+  return 2',
            ' }',
          ].join('\n'),
      },
    ],
    after: { 'h.ts': HINTED },
  },
  delete: {
    title: 'deletes a file',
    files: { 'old.txt': 'bye\n', 'keep.txt': 'stay\n' },
    calls: [
      {
        id: 'c1',
        operation: { type: 'delete_file', path: 'old.txt' },
        completed: (tx) =>
          [
            'D old.txt',
            `transaction ${tx}`,
            '',
            'diff --git a/old.txt b/old.txt',
            'deleted file mode 100644',
            '--- a/old.txt',
            '+++ /dev/null',
            '@@ -1 +0,0 @@',
            '-bye',
          ].join('\n'),
      },
    ],
    after: { 'old.txt': null, 'keep.txt': 'stay\n' },
  },
  move: {
    title:
      'moves a file as a create_file and a delete_file in one response, each its own transaction',
    files: { 'a/old.md': '# Title\nbody\n' },
    calls: [
      {
        id: 'c1',
        operation: { type: 'create_file', path: 'b/new.md', diff: '+# Title\n+body\n' },
        completed: (tx) =>
          [
            'A b/new.md',
            `content_hash b/new.md: ${hashOf('# Title\nbody\n')}`,
            `transaction ${tx}`,
            '',
            'diff --git a/b/new.md b/b/new.md',
            'new file mode 100644',
            '--- /dev/null',
            '+++ b/b/new.md',
            '@@ -0,0 +1,2 @@',
            '+# Title',
            '+body',
          ].join('\n'),
      },
      {
        id: 'c2',
        operation: { type: 'delete_file', path: 'a/old.md' },
        completed: (tx) =>
          [
            'D a/old.md',
            `transaction ${tx}`,
            '',
            'diff --git a/a/old.md b/a/old.md',
            'deleted file mode 100644',
            '--- a/a/old.md',
            '+++ /dev/null',
            '@@ -1,2 +0,0 @@',
            '-# Title',
            '-body',
          ].join('\n'),
      },
    ],
    after: { 'b/new.md': '# Title\nbody\n', 'a/old.md': null },
  },
  ambiguous: {
    title: 'refuses an ambiguous update with the candidates, and writes nothing',
    files: { 'f.ts': TWO_FUNCTIONS },
    calls: [
      {
        id: 'c1',
        operation: { type: 'update_file', path: 'f.ts', diff: '-  return 1\n+  return 3\n }\n' },
        failed: [
          'MATCH_AMBIGUOUS: The hunk at patch line 3 matches in f.ts at lines 2, 6; add context to make it unique.',
          'hint: Add surrounding lines (or an @@ hint) until it is unique, or set replace_all / expected_matches.',
          'candidate at line 2 (100%): return 1',
          'candidate at line 6 (100%): return 1',
          'note: the diff was applied as the body of a Codex patch, in which its line 1 is patch line 3',
        ].join('\n'),
      },
    ],
    after: { 'f.ts': TWO_FUNCTIONS },
  },
  notFound: {
    title: 'fails a hunk that does not match, and leaves the file byte for byte',
    files: { 'g.txt': 'alpha\r\nbeta\r\ngamma' },
    calls: [
      {
        id: 'c1',
        operation: { type: 'update_file', path: 'g.txt', diff: ' alpha\n-delta\n+DELTA\n' },
        failed: [
          'MATCH_NOT_FOUND: Could not find its lines for the hunk at patch line 3 in g.txt (first line "alpha").',
          'hint: Copy the context exactly from the file; the nearest candidates are listed with their line numbers.',
          'candidate at line 1 (64%): alpha',
          'note: the diff was applied as the body of a Codex patch, in which its line 1 is patch line 3',
        ].join('\n'),
      },
    ],
    after: { 'g.txt': 'alpha\r\nbeta\r\ngamma' },
  },
  endings: {
    title: "keeps a CRLF file's endings and a file's missing final newline",
    files: {
      'crlf.txt': 'one\r\ntwo\r\nthree\r\n',
      'bare.txt': 'first\nsecond\nlast',
      'v.txt': 'a\r\nb\r\nc',
    },
    calls: [
      {
        id: 'c1',
        operation: { type: 'update_file', path: 'crlf.txt', diff: ' one\n-two\n+TWO\n three\n' },
        completed: (tx) =>
          [
            'M crlf.txt (+1 -1)',
            `content_hash crlf.txt: ${hashOf('one\r\nTWO\r\nthree\r\n')}`,
            `transaction ${tx}`,
            '',
            'diff --git a/crlf.txt b/crlf.txt',
            '--- a/crlf.txt',
            '+++ b/crlf.txt',
            '@@ -1,3 +1,3 @@',
            ' one\r',
            '-two\r',
            '+TWO\r',
            ' three\r',
          ].join('\n'),
      },
      // Its hunk reaches the last line (as context): the file still ends without a newline.
      {
        id: 'c2',
        operation: {
          type: 'update_file',
          path: 'bare.txt',
          diff: '-first\n+FIRST\n second\n last\n',
        },
        completed: (tx) =>
          [
            'M bare.txt (+1 -1)',
            `content_hash bare.txt: ${hashOf('FIRST\nsecond\nlast')}`,
            `transaction ${tx}`,
            '',
            'diff --git a/bare.txt b/bare.txt',
            '--- a/bare.txt',
            '+++ b/bare.txt',
            '@@ -1,3 +1,3 @@',
            '-first',
            '+FIRST',
            ' second',
            ' last',
            '\\ No newline at end of file',
          ].join('\n'),
      },
      // A hunk that reaches the last line with *** End of File keeps the missing newline, as
      // agents-core's applier does.
      {
        id: 'c3',
        operation: {
          type: 'update_file',
          path: 'v.txt',
          diff: ' a\n-b\n+B\n c\n*** End of File\n',
        },
        completed: (tx) =>
          [
            'M v.txt (+1 -1)',
            `content_hash v.txt: ${hashOf('a\r\nB\r\nc')}`,
            `transaction ${tx}`,
            '',
            'diff --git a/v.txt b/v.txt',
            '--- a/v.txt',
            '+++ b/v.txt',
            '@@ -1,3 +1,3 @@',
            ' a\r',
            '-b\r',
            '+B\r',
            ' c',
            '\\ No newline at end of file',
          ].join('\n'),
      },
    ],
    after: {
      'crlf.txt': 'one\r\nTWO\r\nthree\r\n',
      'bare.txt': 'FIRST\nsecond\nlast',
      'v.txt': 'a\r\nB\r\nc',
    },
  },
  outside: {
    title: 'refuses a path outside the workspace',
    files: { 'in.txt': 'x\n' },
    calls: [
      {
        id: 'c1',
        operation: { type: 'create_file', path: '../outside.txt', diff: '+x\n' },
        failed: `PATH_OUTSIDE_ROOT: ../outside.txt ${OUTSIDE}`,
      },
      {
        id: 'c2',
        operation: { type: 'update_file', path: '/etc/hostname', diff: '-x\n+y\n' },
        failed: `PATH_OUTSIDE_ROOT: /etc/hostname ${OUTSIDE}`,
      },
      {
        id: 'c3',
        operation: { type: 'delete_file', path: '../../etc/passwd' },
        failed: `PATH_OUTSIDE_ROOT: ../../etc/passwd ${OUTSIDE}`,
      },
    ],
    after: { 'in.txt': 'x\n' },
  },
  envelope: {
    title: 'refuses a diff that carries an envelope or another file operation, writing nothing',
    files: { 'a.txt': 'a\n' },
    calls: [
      {
        id: 'c1',
        operation: {
          type: 'update_file',
          path: 'a.txt',
          diff: '*** Begin Patch\n*** Update File: a.txt\n-a\n+b\n*** End Patch\n',
        },
        failed: [
          `PARSE_BAD_HEADER: Line 1 of the update_file diff of a.txt is "*** Begin Patch": the diff carries a patch envelope of its own. Send only the diff (its @@, ' ', '-' and '+' lines); the envelope and the file header come from the operation.`,
          ONE_FILE_ONLY,
        ].join('\n'),
      },
      {
        id: 'c2',
        operation: {
          type: 'update_file',
          path: 'a.txt',
          diff: '-a\n+b\n*** Add File: evil.sh\n+rm -rf ~\n',
        },
        failed: [
          `PARSE_BAD_HEADER: Line 3 of the update_file diff of a.txt is "*** Add File: evil.sh", a *** directive: it would start another file operation. A V4A diff holds @@ lines, ' ', '-' and '+' lines and *** End of File only.`,
          ONE_FILE_ONLY,
        ].join('\n'),
      },
      {
        id: 'c3',
        operation: { type: 'delete_file', path: 'a.txt\n*** Delete File: b.txt' },
        failed: [
          'PATH_INVALID: The path "a.txt\\n*** Delete File: b.txt" holds a line break; a path is one line.',
          'hint: Use a relative path to a file inside the workspace, with names the filesystem can hold.',
        ].join('\n'),
      },
    ],
    after: { 'a.txt': 'a\n', 'evil.sh': null },
  },
} satisfies Record<string, PatchCase>
