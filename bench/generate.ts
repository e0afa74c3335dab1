// Seeded synthetic workspaces and patches for the benches (nothing is checked in). Files look like
// code: indented blocks with repeated boilerplate, so matching faces realistic repetition; each
// hunk changes a line whose surrounding 3 lines are unique (a numbered function header), so every
// patch applies unambiguously.
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'

/** mulberry32: small, fast, good enough for test data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A generated request: files of `lines` lines, each changed by `hunks` hunks. */
export interface Size {
  readonly files: number
  readonly lines: number
  readonly hunks: number
}

export interface GeneratedFile {
  readonly path: string
  readonly lines: readonly string[]
}

const BODY = [
  '  const value = input ?? defaults',
  '  if (!value) return null',
  '  log.debug(value)',
  '  return value',
]

/** A file of `lineCount` lines made of numbered functions with repetitive bodies. */
export function generateFile(
  index: number,
  lineCount: number,
  random: () => number,
): GeneratedFile {
  const lines: string[] = []
  let fn = 0
  while (lines.length < lineCount) {
    lines.push(`export function f${index}_${fn++}(input: number) {`)
    const bodyLength = 2 + Math.floor(random() * BODY.length)
    for (let i = 0; i < bodyLength; i++) lines.push(BODY[i % BODY.length] as string)
    lines.push('}', '')
  }
  return { path: `src/mod${index}/file${index}.ts`, lines: lines.slice(0, lineCount) }
}

export interface Workspace {
  readonly files: readonly GeneratedFile[]
}

export function generateWorkspace(fileCount: number, linesPerFile: number, seed = 1): Workspace {
  const random = prng(seed)
  return {
    files: Array.from({ length: fileCount }, (_, i) => generateFile(i, linesPerFile, random)),
  }
}

export async function writeWorkspace(root: string, ws: Workspace): Promise<void> {
  for (const file of ws.files) {
    await mkdir(path.dirname(path.join(root, file.path)), { recursive: true })
    await writeFile(path.join(root, file.path), file.lines.join('\n') + '\n')
  }
}

interface Edit {
  /** 0-based index of the function header line that is changed. */
  readonly start: number
}

/** Picks `hunksPerFile` header lines spread over the file. */
function pickEdits(file: GeneratedFile, hunksPerFile: number): Edit[] {
  const headers = file.lines.flatMap((l, i) => (l.startsWith('export function') ? [i] : []))
  const step = Math.max(1, Math.floor(headers.length / hunksPerFile))
  const edits: Edit[] = []
  for (let h = 0; h < hunksPerFile && h * step < headers.length; h++)
    edits.push({ start: headers[h * step] as number })
  return edits
}

const renamed = (line: string) =>
  line.replace('(input: number)', '(input: number, options?: Options)')

/** A Codex patch changing `hunksPerFile` function signatures in each of the first `fileCount` files. */
export function codexPatch(ws: Workspace, fileCount: number, hunksPerFile: number): string {
  const out = ['*** Begin Patch']
  for (const file of ws.files.slice(0, fileCount)) {
    out.push(`*** Update File: ${file.path}`)
    for (const { start } of pickEdits(file, hunksPerFile)) {
      out.push('@@')
      const line = file.lines[start] as string
      out.push(`-${line}`, `+${renamed(line)}`)
      for (const ctx of file.lines.slice(start + 1, start + 3)) out.push(` ${ctx}`)
    }
  }
  out.push('*** End Patch')
  return out.join('\n') + '\n'
}

/** The same change as a git-style unified diff. */
export function unifiedPatch(ws: Workspace, fileCount: number, hunksPerFile: number): string {
  const out: string[] = []
  for (const file of ws.files.slice(0, fileCount)) {
    out.push(`diff --git a/${file.path} b/${file.path}`, `--- a/${file.path}`, `+++ b/${file.path}`)
    for (const { start } of pickEdits(file, hunksPerFile)) {
      const from = Math.max(0, start - 3)
      const to = Math.min(file.lines.length, start + 4)
      const count = to - from
      out.push(`@@ -${from + 1},${count} +${from + 1},${count} @@`)
      for (let i = from; i < to; i++) {
        const line = file.lines[i] as string
        if (i === start) out.push(`-${line}`, `+${renamed(line)}`)
        else out.push(` ${line}`)
      }
    }
  }
  return out.join('\n') + '\n'
}

// ---- The same change in every input format -------------------------------------------------
// A BlockChange is a run of file lines and their replacement, line for line (equal lengths), so
// one change renders as a Codex chunk, a unified hunk, a SEARCH/REPLACE block or a JSON edit, and
// the parse and apply benches compare formats on identical work.

export interface BlockChange {
  readonly path: string
  /** 0-based index of the block's first line in the file. */
  readonly start: number
  readonly before: readonly string[]
  readonly after: readonly string[]
}

/**
 * The function-signature changes of codexPatch/unifiedPatch as blocks: the changed header with
 * `contextBefore` lines above and `contextAfter` below (unique, because headers are numbered).
 */
export function signatureChanges(
  ws: Workspace,
  fileCount: number,
  hunksPerFile: number,
  contextBefore = 3,
  contextAfter = 3,
): BlockChange[] {
  const changes: BlockChange[] = []
  for (const file of ws.files.slice(0, fileCount)) {
    for (const { start } of pickEdits(file, hunksPerFile)) {
      const from = Math.max(0, start - contextBefore)
      const to = Math.min(file.lines.length, start + 1 + contextAfter)
      const before = file.lines.slice(from, to)
      const after = before.map((line, i) => (from + i === start ? renamed(line) : line))
      changes.push({ path: file.path, start: from, before, after })
    }
  }
  return changes
}

/** One block of `length` lines from `start`, changing every `every`-th line (a huge hunk). */
export function blockChange(
  file: GeneratedFile,
  start: number,
  length: number,
  every: number,
): BlockChange {
  const before = file.lines.slice(start, start + length)
  const after = before.map((line, i) =>
    i % every === 0
      ? line.startsWith('export function')
        ? renamed(line)
        : `${line} // changed`
      : line,
  )
  return { path: file.path, start, before, after }
}

function groupByPath(changes: readonly BlockChange[]): Map<string, BlockChange[]> {
  const byPath = new Map<string, BlockChange[]>()
  for (const change of changes) {
    const list = byPath.get(change.path)
    if (list === undefined) byPath.set(change.path, [change])
    else list.push(change)
  }
  return byPath
}

/** Hunk body lines: unchanged lines as context, each changed line as '-old' then '+new'. */
function hunkBody(change: BlockChange): string[] {
  const out: string[] = []
  change.before.forEach((line, i) => {
    const next = change.after[i] as string
    if (line === next) out.push(` ${line}`)
    else out.push(`-${line}`, `+${next}`)
  })
  return out
}

export function codexFromChanges(changes: readonly BlockChange[]): string {
  const out = ['*** Begin Patch']
  for (const [file, list] of groupByPath(changes)) {
    out.push(`*** Update File: ${file}`)
    for (const change of list) out.push('@@', ...hunkBody(change))
  }
  out.push('*** End Patch')
  return out.join('\n') + '\n'
}

export function unifiedFromChanges(changes: readonly BlockChange[]): string {
  const out: string[] = []
  for (const [file, list] of groupByPath(changes)) {
    out.push(`diff --git a/${file} b/${file}`, `--- a/${file}`, `+++ b/${file}`)
    for (const change of list) {
      const count = change.before.length
      out.push(
        `@@ -${change.start + 1},${count} +${change.start + 1},${count} @@`,
        ...hunkBody(change),
      )
    }
  }
  return out.join('\n') + '\n'
}

/** Aider-style blocks as an LLM writes them: file name, fenced block, markers. */
export function searchReplaceFromChanges(changes: readonly BlockChange[]): string {
  const out: string[] = []
  for (const change of changes) {
    out.push(change.path, '```ts', '<<<<<<< SEARCH', ...change.before, '=======')
    out.push(...change.after, '>>>>>>> REPLACE', '```', '')
  }
  return out.join('\n')
}

/** str_replace-style JSON: one replace edit per change. */
export function editsFromChanges(changes: readonly BlockChange[]): string {
  const edits = changes.map((change) => ({
    path: change.path,
    old_string: change.before.join('\n'),
    new_string: change.after.join('\n'),
  }))
  return JSON.stringify({ edits }, null, 1)
}

// ---- Small real projects for the language-server bench (lsp.bench.ts) -------------------------
// `count` modules that import each other without cycles: module i calls f(i-1) from the module
// before it (so module i is the importer of module i-1) and reads v(j) from up to two seeded
// earlier modules, followed by seeded filler functions. Every file type-checks cleanly as written;
// the bench's edits are single-line replacements of lines named by LspProject.

export type LspLanguage = 'typescript' | 'python'

export interface LspProject {
  readonly language: LspLanguage
  /** Workspace-relative path -> content (config files included). */
  readonly files: Readonly<Record<string, string>>
}

const pad2 = (n: number) => String(n).padStart(2, '0')

/** The module file name of module `index` ('mod07.ts' / 'mod07.py'). */
export function lspModulePath(language: LspLanguage, index: number): string {
  return `mod${pad2(index)}.${language === 'typescript' ? 'ts' : 'py'}`
}

/** The line that declares module `index`'s label (string-typed): the type-error edit's target. */
export function lspLabelLine(language: LspLanguage, index: number): string {
  const id = pad2(index)
  return language === 'typescript'
    ? `export const label${id}: string = 'mod${id}'`
    : `label${id}: str = "mod${id}"`
}

/** The header of module `index`'s exported function f<index>(x): the signature edit's target. */
export function lspSignatureLine(language: LspLanguage, index: number): string {
  const id = pad2(index)
  return language === 'typescript'
    ? `export function f${id}(x: number): number {`
    : `def f${id}(x: int) -> int:`
}

/** The line in module `index` that calls f<index-1>: where a signature change there breaks it. */
export function lspCallLine(language: LspLanguage, index: number): string {
  const id = pad2(index)
  const callee = pad2(index - 1)
  return language === 'typescript'
    ? `export const r${id}: number = f${callee}(${index})`
    : `r${id}: int = f${callee}(${index})`
}

export function generateLspProject(language: LspLanguage, count: number, seed = 1): LspProject {
  const random = prng(seed)
  const files: Record<string, string> = {}
  if (language === 'typescript') {
    files['package.json'] = '{ "name": "lsp-bench", "private": true, "type": "module" }\n'
    files['tsconfig.json'] =
      '{ "compilerOptions": { "strict": true, "module": "nodenext", "target": "es2022", ' +
      '"noEmit": true }, "include": ["*.ts"] }\n'
  } else {
    files['pyproject.toml'] =
      '[project]\nname = "lsp-bench"\nversion = "0.0.0"\n\n' +
      '[tool.pyright]\ntypeCheckingMode = "standard"\n'
  }
  for (let i = 0; i < count; i++) {
    const id = pad2(i)
    const reads = new Set<number>()
    for (let k = 0; k < 2 && i > 1; k++) reads.add(Math.floor(random() * (i - 1)))
    const fillers = 2 + Math.floor(random() * 5)
    const lines: string[] = []
    if (language === 'typescript') {
      lines.push(`// mod${id}: generated by bench/generate.ts (seeded)`)
      if (i > 0) lines.push(`import { f${pad2(i - 1)} } from './mod${pad2(i - 1)}.js'`)
      for (const j of reads) lines.push(`import { v${pad2(j)} } from './mod${pad2(j)}.js'`)
      lines.push('', lspLabelLine(language, i))
      lines.push(
        `export const v${id}: number = ${[i, ...[...reads].map((j) => `v${pad2(j)}`)].join(' + ')}`,
      )
      lines.push('', lspSignatureLine(language, i), `  return x * ${i + 1}`, '}')
      if (i > 0) lines.push('', lspCallLine(language, i))
      for (let h = 0; h < fillers; h++) {
        lines.push('', `export function helper${id}_${h}(items: readonly number[]): number {`)
        lines.push('  let total = 0', `  for (const item of items) total += item * ${h + 2}`)
        lines.push(`  return total + v${id}`, '}')
      }
    } else {
      lines.push(`# mod${id}: generated by bench/generate.ts (seeded)`)
      if (i > 0) lines.push(`from mod${pad2(i - 1)} import f${pad2(i - 1)}`)
      for (const j of reads) lines.push(`from mod${pad2(j)} import v${pad2(j)}`)
      lines.push('', lspLabelLine(language, i))
      lines.push(`v${id}: int = ${[i, ...[...reads].map((j) => `v${pad2(j)}`)].join(' + ')}`)
      lines.push('', '', lspSignatureLine(language, i), `    return x * ${i + 1}`)
      if (i > 0) lines.push('', '', lspCallLine(language, i))
      for (let h = 0; h < fillers; h++) {
        lines.push('', '', `def helper${id}_${h}(items: list[int]) -> int:`)
        lines.push('    total = 0', '    for item in items:', `        total += item * ${h + 2}`)
        lines.push(`    return total + v${id}`)
      }
    }
    files[lspModulePath(language, i)] = lines.join('\n') + '\n'
  }
  return { language, files }
}

export async function writeLspProject(root: string, project: LspProject): Promise<void> {
  for (const [rel, text] of Object.entries(project.files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true })
    await writeFile(path.join(root, rel), text)
  }
}

// ---- A repository-sized tree for large.bench.ts -----------------------------------------------
// Thousands of files in one flat folder would flatter every tool (one directory to look up), so
// the large bench spreads its files over a seeded tree of nested directories, 1 to 4 levels below
// src/, the way a real repository's sources are.

const DIR_NAMES = ['core', 'api', 'ui', 'util', 'data', 'net', 'cli', 'io'] as const

/** A seeded nested path for file `index`: src/<1-4 directories>/file<index>.ts (unique). */
export function nestedPath(index: number, random: () => number): string {
  const depth = 1 + Math.floor(random() * 4)
  const dirs: string[] = []
  for (let d = 0; d < depth; d++) {
    const name = DIR_NAMES[Math.floor(random() * DIR_NAMES.length)] as string
    dirs.push(`${name}${Math.floor(random() * 4)}`)
  }
  return ['src', ...dirs, `file${index}.ts`].join('/')
}

/** generateWorkspace's files (same content for the same seed), spread over nested directories. */
export function generateRepository(fileCount: number, linesPerFile: number, seed = 1): Workspace {
  const content = prng(seed)
  const paths = prng(seed ^ 0x5eed)
  return {
    files: Array.from({ length: fileCount }, (_, i) => ({
      ...generateFile(i, linesPerFile, content),
      path: nestedPath(i, paths),
    })),
  }
}

/**
 * Each touched file's text after `changes` (BlockChanges are line-for-line, so every start stays
 * valid whatever the order); files no change names are left out.
 */
export function changedTexts(ws: Workspace, changes: readonly BlockChange[]): Map<string, string> {
  const byPath = groupByPath(changes)
  const out = new Map<string, string>()
  for (const file of ws.files) {
    const list = byPath.get(file.path)
    if (list === undefined) continue
    const lines = [...file.lines]
    for (const change of list) lines.splice(change.start, change.before.length, ...change.after)
    out.set(file.path, lines.join('\n') + '\n')
  }
  return out
}

/** Bytes on disk of the workspace's files as writeWorkspace writes them (all ASCII). */
export function workspaceBytes(ws: Workspace): number {
  return ws.files.reduce((sum, f) => sum + f.lines.reduce((n, l) => n + l.length + 1, 0), 0)
}
