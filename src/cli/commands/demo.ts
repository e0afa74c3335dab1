// `patchloom demo`: patchloom's main job on a built-in example. Creates a scratch workspace,
// applies one change in each input format, one with diagnostics from the embedded TypeScript 7
// server (the error it introduced), then a multi-file patch that fails verification on its last
// file and leaves the workspace untouched; last, a history replay of this clone's own git
// history in each --via mode (unified, codex, search-replace), or of a small repository built
// in the scratch directory when there is no .git.
// Writes only inside a temp directory.
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createEngine } from '../../engine/engine.js'
import { isEditError } from '../../errors.js'
import { replay, REPLAY_VIAS } from '../../replay/replay.js'
import { findPackageRoot } from '../package-root.js'
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
      if (after !== before) return 1
    }
    return await replayStep(io, root)
  } finally {
    await engine.close()
    await rm(root, { recursive: true, force: true })
  }
}

/**
 * Replays a git history through the engine: this project's own when it runs from a clone,
 * else a small one built here with git. Exit 1 if any commit does not come out exact.
 */
async function replayStep(io: DemoIo, scratch: string): Promise<number> {
  const own = (await findPackageRoot())?.dir ?? null
  let repo = own !== null && existsSync(path.join(own, '.git')) ? own : null
  io.stdout(
    repo === null
      ? "\n== History replay: no .git here, so a small repository's history, built with git\n"
      : "\n== History replay: this project's own git history, through the engine, checked against git\n",
  )
  try {
    repo ??= buildDemoRepo(path.join(scratch, 'history'))
  } catch (error) {
    io.stdout(
      `  (skipped: git is not available here: ${(error as Error).message.split('\n')[0]})\n`,
    )
    return 0
  }
  let failed = false
  for (const via of REPLAY_VIAS) {
    const run = replay({ repo, via, maxCommits: DEMO_REPLAY_COMMITS })
    let step = await run.next()
    while (!step.done) step = await run.next()
    const r = step.value
    const seconds = r.wallMs / 1000
    const refused =
      via === 'unified'
        ? ''
        : `, ${r.refusedHunks} of ${r.formatHunks} hunks refused (${((100 * r.refusedHunks) / Math.max(1, r.formatHunks)).toFixed(1)}%), ${r.misplacedHunks} misplaced`
    io.stdout(
      `via ${via.padEnd(14)} ${r.commits} commits (${r.files} files, ${r.hunks} hunks) in ${seconds.toFixed(2)} s: ${r.exactCommits} exact, ${r.mismatches.length} mismatches, ${r.fallbacks} fallbacks${refused}\n`,
    )
    for (const m of r.mismatches.slice(0, 5))
      io.stdout(`  mismatch ${m.commit.slice(0, 12)} ${m.path}: ${m.expected} / ${m.actual}\n`)
    for (const m of r.misplaced.slice(0, 5))
      io.stdout(`  misplaced ${m.commit.slice(0, 12)} ${m.path} hunk ${m.hunk}\n`)
    if (r.mismatches.length > 0 || r.misplacedHunks > 0) failed = true
  }
  io.stdout(
    '  (codex and search-replace: each diff rewritten in that format, context only, and placed by the matcher;\n' +
      '   a refused hunk is one it would not place in exactly one spot, and its file continues from git)\n',
  )
  return failed ? 1 : 0
}

/** The demo replays at most this many commits (the oldest first), to stay a demo. */
const DEMO_REPLAY_COMMITS = 1000

/** A five-commit history (add, edit, rename with an edit, mode change, delete) in `dir` (exported for its test). */
export function buildDemoRepo(dir: string): string {
  const env = {
    ...process.env,
    // The user's own git configuration (signing, hooks paths, templates) must not change it.
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'demo',
    GIT_AUTHOR_EMAIL: 'demo@example.com',
    GIT_COMMITTER_NAME: 'demo',
    GIT_COMMITTER_EMAIL: 'demo@example.com',
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, stdio: 'pipe' })
  const write = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
    writeFileSync(path.join(dir, rel), text)
  }
  mkdirSync(dir, { recursive: true })
  git('init', '-q')
  const commit = (message: string) => {
    git('add', '-A')
    git('commit', '-q', '-m', message)
  }
  write('src/greet.ts', FILES['src/greet.ts'] as string)
  write('notes.md', FILES['notes.md'] as string)
  commit('add greet and notes')
  write('src/greet.ts', (FILES['src/greet.ts'] as string).replace('Hello', 'Hi'))
  commit('greet says hi')
  git('mv', 'src/greet.ts', 'src/hello.ts')
  write(
    'src/hello.ts',
    (FILES['src/greet.ts'] as string).replace('Hello', 'Hi').replace('Goodbye', 'Bye'),
  )
  commit('rename with an edit')
  chmodSync(path.join(dir, 'notes.md'), 0o755)
  commit('mode change')
  rmSync(path.join(dir, 'notes.md'))
  commit('delete notes')
  return dir
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
