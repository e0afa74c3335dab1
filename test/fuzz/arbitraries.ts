// fast-check arbitraries for the fuzz suites: small random workspaces,
// valid patches against them in each of the four formats, and mutations of those patches
// (dropped, duplicated and swapped lines, flipped prefixes, truncation, injected CR/NUL/unicode,
// hostile paths). Generation is plain data; materialising a workspace on disk and judging the
// engine's answer are left to the suites, so a shrunk counterexample prints readably.
import fc from 'fast-check'
import type { PatchFormat } from '../../src/types.js'

export const FORMATS: readonly PatchFormat[] = ['codex', 'unified', 'search-replace', 'edits']

export interface WsFile {
  readonly path: string
  readonly lines: readonly string[]
  readonly eol: '\n' | '\r\n'
  readonly executable: boolean
}

export interface Workspace {
  readonly files: readonly WsFile[]
  /** Adds `out` -> `../sentinel`, a directory symlink leading out of the root. */
  readonly escapeLink: boolean
}

/** One change of a valid patch; indices are reduced modulo the sizes they index. */
export type OpSpec =
  | {
      readonly kind: 'update'
      readonly file: number
      readonly line: number
      /** null deletes the line; `insert` keeps it and adds newText after it. */
      readonly newText: string | null
      readonly insert: boolean
    }
  | { readonly kind: 'add'; readonly name: string; readonly lines: readonly string[] }
  | { readonly kind: 'delete'; readonly file: number }

export type Mutation =
  | { readonly kind: 'drop'; readonly at: number }
  | { readonly kind: 'duplicate'; readonly at: number }
  | { readonly kind: 'swap'; readonly at: number }
  | { readonly kind: 'prefix'; readonly at: number; readonly prefix: string }
  | { readonly kind: 'truncate'; readonly at: number }
  | { readonly kind: 'inject'; readonly at: number; readonly token: string }
  | { readonly kind: 'path'; readonly which: number; readonly hostile: number }

const PATHS = ['a.txt', 'src/b.ts', 'src/deep/c.md', 'd.py', 'e f.txt'] as const
const NEW_NAMES = ['new.txt', 'src/new.ts', 'fresh/dir/n.md'] as const

const WORDS = [
  'alpha',
  'beta',
  'gamma',
  'return x',
  '  indented();',
  '\tTabbed',
  '{',
  '}',
  '',
  '// note',
  'café ✓',
  '-dash',
  '+plus',
  '@@ at',
  '*** star',
]

/** A line of text (no terminators): mostly words, so lines repeat and ambiguity happens. */
export const lineArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...WORDS) },
  {
    weight: 2,
    arbitrary: fc
      .string({ unit: 'grapheme-ascii', maxLength: 10 })
      .map((s) => s.replace(/[\r\n]/g, '')),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }).map(stripEol) },
)

function stripEol(s: string): string {
  return s.replace(/[\r\n\u2028\u2029\u0085]/g, '')
}

export const workspaceArb: fc.Arbitrary<Workspace> = fc.record({
  files: fc.uniqueArray(fc.constantFrom(...PATHS), { minLength: 1, maxLength: 4 }).chain((paths) =>
    fc.tuple(
      ...paths.map((path) =>
        fc.record({
          path: fc.constant(path),
          lines: fc.array(lineArb, { minLength: 1, maxLength: 10 }),
          eol: fc.constantFrom<'\n' | '\r\n'>('\n', '\n', '\r\n'),
          executable: fc.boolean(),
        }),
      ),
    ),
  ),
  escapeLink: fc.boolean(),
})

export const opArb: fc.Arbitrary<OpSpec> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('update' as const),
      file: fc.nat(),
      line: fc.nat(),
      newText: fc.option(lineArb, { freq: 6 }),
      insert: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      name: fc.constantFrom(...NEW_NAMES),
      lines: fc.array(lineArb, { minLength: 1, maxLength: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), file: fc.nat() }) },
)

const INJECT_TOKENS = [
  '\r',
  '\0',
  '\r\n',
  '\n',
  '\uFEFF',
  '\u2028',
  '\u00e9',
  '\u{1F600}',
  '\uD800',
  '\uDC00',
  '\t',
  '\\',
  '"',
  '*** End Patch\n',
  '@@\n',
  '=======\n',
  '>>>>>>> REPLACE\n',
  '\\ No newline at end of file\n',
]

const PREFIXES = [' ', '-', '+', '@', '@@ ', '*', '*** ', '<', '=', '>', '\\', '#', '', '\t', '"']

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('swap' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('prefix' as const),
    at: fc.nat(),
    prefix: fc.constantFrom(...PREFIXES),
  }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('inject' as const),
    at: fc.nat(),
    token: fc.oneof(fc.constantFrom(...INJECT_TOKENS), fc.string({ unit: 'binary', maxLength: 3 })),
  }),
  fc.record({ kind: fc.constant('path' as const), which: fc.nat(), hostile: fc.nat() }),
)

/** Paths that must be refused (or stay inside the root); `sentinel` is the absolute sibling dir. */
export function hostilePaths(sentinel: string): readonly string[] {
  return [
    '../sentinel/x.txt',
    '../x.txt',
    '../../x.txt',
    'src/../../sentinel/y.txt',
    `${sentinel}/abs.txt`,
    `${sentinel}/../sentinel/abs2.txt`,
    '/dev/null/x',
    '.git/x',
    '.git/HEAD',
    'src/.git/config',
    '.patchloom/journal/x',
    'out/x.txt',
    'out/../out/y.txt',
    'out',
    `${'x'.repeat(300)}.txt`,
    // 250 bytes: a legal name, but too long for the commit's temp-file name (see the report).
    'n'.repeat(250),
    `${'d/'.repeat(150)}f.txt`,
    'a\0b.txt',
    '',
    ' ',
    '.',
    '..',
    './',
    'src',
    'src/',
    'A.TXT',
    ' a.txt ',
    '..\\..\\x.txt',
    '~/x.txt',
    'file:///x.txt',
    'a.txt/x',
  ]
}

/** The patch text for `ops` against `ws` in `format`, plus the paths it names. */
export function renderPatch(
  format: PatchFormat,
  ws: Workspace,
  ops: readonly OpSpec[],
): { text: string; paths: string[] } {
  const used = new Set<string>()
  const parts: string[] = []
  const paths: string[] = []
  const edits: Record<string, unknown>[] = []
  for (const op of ops) {
    const file = op.kind === 'add' ? undefined : ws.files[op.file % ws.files.length]
    const path = op.kind === 'add' ? op.name : (file as WsFile).path
    if (used.has(path)) continue
    used.add(path)
    paths.push(path)
    if (op.kind === 'add') {
      parts.push(renderAdd(format, path, op.lines, edits))
    } else if (op.kind === 'delete') {
      parts.push(renderDelete(format, file as WsFile, edits))
    } else {
      parts.push(renderUpdate(format, file as WsFile, op, edits))
    }
  }
  let text: string
  switch (format) {
    case 'codex':
      text = `*** Begin Patch\n${parts.join('')}*** End Patch\n`
      break
    case 'edits':
      text = JSON.stringify({ edits }, null, 1)
      break
    default:
      text = parts.join('')
  }
  return { text, paths }
}

function renderAdd(
  format: PatchFormat,
  path: string,
  lines: readonly string[],
  edits: Record<string, unknown>[],
): string {
  switch (format) {
    case 'codex':
      return `*** Add File: ${path}\n${lines.map((l) => `+${l}\n`).join('')}`
    case 'unified':
      return (
        `--- /dev/null\n+++ b/${path}\n@@ -0,0 +1,${lines.length} @@\n` +
        lines.map((l) => `+${l}\n`).join('')
      )
    case 'search-replace':
      return `${path}\n<<<<<<< SEARCH\n=======\n${lines.map((l) => `${l}\n`).join('')}>>>>>>> REPLACE\n\n`
    case 'edits':
      edits.push({ path, mode: 'write', content: lines.map((l) => `${l}\n`).join('') })
      return ''
  }
}

function renderDelete(format: PatchFormat, file: WsFile, edits: Record<string, unknown>[]): string {
  switch (format) {
    case 'codex':
      return `*** Delete File: ${file.path}\n`
    case 'unified':
      return (
        `--- a/${file.path}\n+++ /dev/null\n@@ -1,${file.lines.length} +0,0 @@\n` +
        file.lines.map((l) => `-${l}\n`).join('')
      )
    case 'search-replace':
      // No delete in SEARCH/REPLACE: empty the file instead.
      return `${file.path}\n<<<<<<< SEARCH\n${file.lines.map((l) => `${l}\n`).join('')}=======\n>>>>>>> REPLACE\n\n`
    case 'edits':
      edits.push({ path: file.path, mode: 'delete_range', start_line: 1, end_line: 1 })
      return ''
  }
}

function renderUpdate(
  format: PatchFormat,
  file: WsFile,
  op: Extract<OpSpec, { kind: 'update' }>,
  edits: Record<string, unknown>[],
): string {
  const at = op.line % file.lines.length
  const lo = Math.max(0, at - 1)
  const hi = Math.min(file.lines.length, at + 2)
  const old = file.lines.slice(lo, hi)
  const rel = at - lo
  const target = file.lines[at] as string
  const replacement = op.newText === null ? [] : op.insert ? [target, op.newText] : [op.newText]
  const after = [...old.slice(0, rel), ...replacement, ...old.slice(rel + 1)]
  const body: string[] = []
  old.forEach((line, i) => {
    if (i < rel) body.push(` ${line}`)
  })
  if (op.insert && op.newText !== null) {
    body.push(` ${target}`, `+${op.newText}`)
  } else {
    body.push(`-${target}`)
    if (op.newText !== null) body.push(`+${op.newText}`)
  }
  old.forEach((line, i) => {
    if (i > rel) body.push(` ${line}`)
  })
  const bodyText = body.map((l) => `${l}\n`).join('')
  switch (format) {
    case 'codex':
      return `*** Update File: ${file.path}\n@@\n${bodyText}`
    case 'unified':
      return `--- a/${file.path}\n+++ b/${file.path}\n@@ -${lo + 1},${old.length} +${lo + 1},${after.length} @@\n${bodyText}`
    case 'search-replace':
      return `${file.path}\n<<<<<<< SEARCH\n${old.map((l) => `${l}\n`).join('')}=======\n${after.map((l) => `${l}\n`).join('')}>>>>>>> REPLACE\n\n`
    case 'edits':
      edits.push({ path: file.path, old_string: old.join('\n'), new_string: after.join('\n') })
      return ''
  }
}

/** Applies `mutations` in order; `hostile` are the replacement paths for 'path' mutations. */
export function mutate(
  format: PatchFormat,
  text: string,
  paths: readonly string[],
  mutations: readonly Mutation[],
  hostile: readonly string[],
): string {
  let out = text
  for (const m of mutations) {
    const lines = out.split('\n')
    const i = lines.length === 0 ? 0 : m.kind === 'path' ? 0 : m.at % lines.length
    switch (m.kind) {
      case 'drop':
        lines.splice(i, 1)
        out = lines.join('\n')
        break
      case 'duplicate':
        lines.splice(i, 0, lines[i] ?? '')
        out = lines.join('\n')
        break
      case 'swap':
        if (i + 1 < lines.length) {
          const a = lines[i] as string
          lines[i] = lines[i + 1] as string
          lines[i + 1] = a
        }
        out = lines.join('\n')
        break
      case 'prefix':
        lines[i] = m.prefix + (lines[i] ?? '').slice(1)
        out = lines.join('\n')
        break
      case 'truncate':
        out = out.slice(0, m.at % (out.length + 1))
        break
      case 'inject': {
        const k = m.at % (out.length + 1)
        out = out.slice(0, k) + m.token + out.slice(k)
        break
      }
      case 'path': {
        const from = paths[m.which % Math.max(1, paths.length)]
        const to = hostile[m.hostile % hostile.length] as string
        if (from === undefined) break
        if (format === 'edits') {
          out = out.split(JSON.stringify(from)).join(JSON.stringify(to))
        } else {
          out = out.split(from).join(to)
        }
        break
      }
    }
  }
  return out
}
