// `patchloom demo`: patchloom's main job on a built-in example. Creates a scratch workspace,
// applies one change in each input format, one with diagnostics from the embedded TypeScript 7
// server (the error it introduced), then a multi-file patch that fails verification on its last
// file and leaves the workspace untouched. Writes only inside a temp directory.
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createEngine } from '../../coordinator/engine.js'
import { isEditError } from '../../errors.js'
import type { ApplyResult } from '../../types.js'

interface DemoIo {
  readonly stdout: (s: string) => void
}

const FILES: Record<string, string> = {
  'tsconfig.json': '{ "compilerOptions": { "strict": true, "noEmit": true } }\n',
  'src/greet.ts': [
    'export function greet(name: string): string {',
    '  return `Hello, ${name}!`',
    '}',
    '',
    'export function farewell(name: string): string {',
    '  return `Goodbye, ${name}.`',
    '}',
    '',
  ].join('\n'),
  'src/config.py': 'TIMEOUT_S = 30\r\nRETRIES = 3\r\nNAME = “patchloom”\r\n',
  'notes.md': '# Notes\n\n- first\n',
}

const STEPS: { title: string; patch: string }[] = [
  {
    title: 'Codex patch: update with an @@ hint, add a file',
    patch: [
      '*** Begin Patch',
      '*** Update File: src/greet.ts',
      '@@ export function farewell(name: string): string {',
      '-  return `Goodbye, ${name}.`',
      '+  return `Goodbye, ${name}. See you soon.`',
      '*** Add File: src/index.ts',
      "+export { greet, farewell } from './greet.js'",
      '*** End Patch',
    ].join('\n'),
  },
  {
    title: 'SEARCH/REPLACE block from an LLM reply (CRLF file, curly quotes kept)',
    patch: [
      'Raise the retry count:',
      '',
      'src/config.py',
      '```python',
      '<<<<<<< SEARCH',
      'RETRIES = 3',
      'NAME = "patchloom"',
      '=======',
      'RETRIES = 5',
      'NAME = "patchloom"',
      '>>>>>>> REPLACE',
      '```',
    ].join('\n'),
  },
  {
    title: 'JSON str_replace edits',
    patch: JSON.stringify({
      edits: [{ path: 'notes.md', old_string: '- first\n', new_string: '- first\n- second\n' }],
    }),
  },
  {
    title: 'Unified diff (git style)',
    patch: [
      'diff --git a/notes.md b/notes.md',
      '--- a/notes.md',
      '+++ b/notes.md',
      '@@ -1,4 +1,4 @@',
      '-# Notes',
      '+# Release notes',
      ' ',
      ' - first',
      ' - second',
    ].join('\n'),
  },
]

/** A Codex patch replacing greet()'s return statement. */
function greetReturns(from: string, to: string): string {
  return [
    '*** Begin Patch',
    '*** Update File: src/greet.ts',
    '@@ export function greet(name: string): string {',
    `-  return ${from}`,
    `+  return ${to}`,
    '*** End Patch',
  ].join('\n')
}

const GREETING = '`Hello, ${name}!`'

const FAILING = [
  '*** Begin Patch',
  '*** Update File: src/greet.ts',
  '@@',
  '-  return `Hello, ${name}!`',
  '+  return `Hi, ${name}!`',
  '*** Delete File: notes.md',
  '*** Update File: src/config.py',
  '@@',
  '-RETRIES = 7',
  '+RETRIES = 9',
  '*** End Patch',
].join('\n')

export async function runDemo(io: DemoIo): Promise<number> {
  const root = await mkdtemp(path.join(tmpdir(), 'patchloom-demo-'))
  const engine = createEngine({ root })
  try {
    for (const [rel, text] of Object.entries(FILES)) {
      await mkdir(path.dirname(path.join(root, rel)), { recursive: true })
      await writeFile(path.join(root, rel), text)
    }
    io.stdout(`patchloom demo: scratch workspace ${root}\n`)
    for (const step of STEPS) {
      const started = performance.now()
      const result = await engine.apply(step.patch)
      io.stdout(
        `\n== ${step.title} [format: ${result.format}, ${(performance.now() - started).toFixed(1)} ms]\n`,
      )
      io.stdout(summary(result))
      for (const file of result.files) io.stdout(indent(file.diff))
    }

    io.stdout(
      '\n== With diagnostics: the TypeScript 7 server says which error this change introduced\n',
    )
    const started = performance.now()
    const checked = await engine.apply(greetReturns(GREETING, 'name.length'), { diagnostics: true })
    io.stdout(summary(checked))
    const report = checked.diagnostics
    if (report === undefined) io.stdout('  (no diagnostics: the language server was unavailable)\n')
    else {
      for (const d of report.introduced)
        io.stdout(
          `  + ${d.path}:${d.line}:${d.column} ${d.severity} TS${d.code ?? ''}: ${d.message}\n`,
        )
      const how = report.servers
        .map((s) => `${s.adapter} ${s.settled ? `settled via ${s.signal}` : 'did NOT settle'}`)
        .join(', ')
      io.stdout(
        `  ${report.introduced.length} introduced, ${report.resolved.length} resolved (${how}; ${(performance.now() - started).toFixed(0)} ms incl. server start)\n`,
      )
    }

    io.stdout('\n== Undo: every change is a journal transaction; put that one back\n')
    const undone = await engine.undo(checked.transaction)
    io.stdout(`undid ${undone.undone} as transaction ${undone.transaction}\n`)
    for (const file of undone.files) io.stdout(`  ${file.op} ${file.path}\n`)

    io.stdout('\n== A 3-file Codex patch whose last hunk does not match: all or nothing\n')
    const before = await readFile(path.join(root, 'src/greet.ts'), 'utf8')
    try {
      await engine.apply(FAILING)
      io.stdout('unexpected: the failing patch applied\n')
      return 1
    } catch (error) {
      if (!isEditError(error)) throw error
      io.stdout(`refused with ${error.code}: ${error.message}\n  hint: ${error.hint}\n`)
      for (const c of error.candidates ?? [])
        io.stdout(`  candidate line ${c.fileLine} (score ${c.score}): ${c.preview}\n`)
      const after = await readFile(path.join(root, 'src/greet.ts'), 'utf8')
      io.stdout(
        after === before
          ? 'src/greet.ts untouched, notes.md still present: nothing was written.\n'
          : 'BUG: files changed\n',
      )
      return after === before ? 0 : 1
    }
  } finally {
    await engine.close()
    await rm(root, { recursive: true, force: true })
  }
}

function summary(result: ApplyResult): string {
  return result.files
    .map((f) => {
      const letter = { add: 'A', update: 'M', delete: 'D', move: 'R', copy: 'C' }[f.op]
      const name = f.from === undefined ? f.path : `${f.from} -> ${f.path}`
      return `${letter} ${name} (+${f.additions} -${f.deletions})${f.overwrote === true ? ' [overwrote]' : ''}\n`
    })
    .join('')
}

function indent(text: string): string {
  return text
    .split('\n')
    .filter((l, i, all) => i < all.length - 1 || l !== '')
    .map((l) => `    ${l}\n`)
    .join('')
}
