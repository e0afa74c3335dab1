// Build step, run by `npm run build` after tsc (node dist/src/cli/bundle.js): bundles the CLI
// into dist/cli/main.cjs and the engine worker into one file with esbuild, then runs the commands
// a one-shot caller runs most (--version, check, an apply of a unified diff and of a Codex patch,
// a batch) in a scratch workspace and writes dist/cli/main.cjs.cache, the V8 code cache
// bin/patchloom.js compiles the bundle with. Why CommonJS, why the cache, what stays lazy and how
// files loaded by name still resolve: DECISIONS.md D-090. Not part of the library or the bundle.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { readFileSync, writeFileSync } from 'node:fs'
import Module, { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import vm from 'node:vm'
import { build } from 'esbuild'
import type { CliIo } from './io.js'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const BUNDLE = join(ROOT, 'dist', 'cli', 'main.cjs')

type Main = (argv: readonly string[], io: CliIo) => Promise<number>

async function bundle(): Promise<void> {
  await rm(dirname(BUNDLE), { recursive: true, force: true })
  await build({
    entryPoints: [join(ROOT, 'dist', 'src', 'cli', 'main.js')],
    outfile: BUNDLE,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    // The MCP SDK and zod stay external too: only the server commands load them. BullMQ and its
    // Redis client likewise: only the queue commands load them.
    external: ['piscina', '@modelcontextprotocol/*', 'zod', 'bullmq', 'ioredis'],
    // import('piscina') becomes a require() on first use: still lazy, and no vm.Script dynamic
    // import callback is needed (Node 20's is experimental, warns on stderr, and is lost when the
    // script comes from the code cache).
    supported: { 'dynamic-import': false },
    define: { 'import.meta.url': '__bundleUrl' },
    banner: {
      js: "'use strict';\nconst __bundleUrl = require('node:url').pathToFileURL(__filename).href;",
    },
    sourcemap: true,
    logLevel: 'warning',
  })
}

/** Compiles the bundle the way bin/patchloom.js does (same wrapper, same file name). */
function compile(source: string, cachedData?: Buffer): vm.Script {
  return new vm.Script(Module.wrap(source), {
    filename: BUNDLE,
    ...(cachedData === undefined ? {} : { cachedData }),
  })
}

const FILE = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n') + '\n'
const UNIFIED = [
  '--- a/a.txt',
  '+++ b/a.txt',
  '@@ -9,7 +9,7 @@',
  ' line 9',
  ' line 10',
  ' line 11',
  '-line 12',
  '+line 12 (unified)',
  ' line 13',
  ' line 14',
  ' line 15',
  '',
].join('\n')
const CODEX = [
  '*** Begin Patch',
  '*** Update File: a.txt',
  '@@',
  ' line 29',
  '-line 30',
  '+line 30 (codex)',
  ' line 31',
  '*** Add File: b.txt',
  '+new',
  '*** End Patch',
  '',
].join('\n')

async function writeCodeCache(): Promise<void> {
  const source = readFileSync(BUNDLE, 'utf8')
  const script = compile(source)
  const module = { exports: {} as { main?: Main } }
  const load = script.runInThisContext() as (...args: unknown[]) => void
  load.call(module.exports, module.exports, createRequire(BUNDLE), module, BUNDLE, dirname(BUNDLE))
  const main = module.exports.main
  if (main === undefined) throw new Error(`${BUNDLE} does not export main`)

  const scratch = await mkdtemp(join(tmpdir(), 'patchloom-code-cache-'))
  const saved = process.env['PATCHLOOM_STATE_DIR']
  // The journal's per-user key goes to the scratch directory, never to the builder's own.
  process.env['PATCHLOOM_STATE_DIR'] = join(scratch, 'state')
  try {
    const ws = join(scratch, 'ws')
    // A batch's own workspaces: one job applies, one checks.
    const batchRoots = [join(scratch, 'batch-a'), join(scratch, 'batch-b')]
    for (const dir of [ws, ...batchRoots]) {
      await mkdir(dir)
      await writeFile(join(dir, 'a.txt'), FILE)
    }
    const jobs = batchRoots
      .map((root, id) =>
        JSON.stringify({ id, root, patch: UNIFIED, options: id === 0 ? {} : { dryRun: true } }),
      )
      .join('\n')
    const runs: [string[], string][] = [
      [['--version'], ''],
      [['check', '-', '--root', ws], UNIFIED],
      [['apply', '-', '--root', ws, '--durability', 'fast'], UNIFIED],
      [['apply', '-', '--root', ws, '--durability', 'fast', '--json'], CODEX],
      [['batch', '-', '--durability', 'fast'], `${jobs}\n`],
    ]
    for (const [argv, patch] of runs) {
      let output = ''
      const io: CliIo = {
        stdin: () => [patch],
        stdout: (s) => void (output += s),
        stderr: (s) => void (output += s),
        cwd: scratch,
      }
      const code = await main(argv, io)
      if (code !== 0) throw new Error(`patchloom ${argv.join(' ')} exited ${code}:\n${output}`)
    }
  } finally {
    if (saved === undefined) delete process.env['PATCHLOOM_STATE_DIR']
    else process.env['PATCHLOOM_STATE_DIR'] = saved
    await rm(scratch, { recursive: true, force: true })
  }

  const cache = script.createCachedData()
  writeFileSync(`${BUNDLE}.cache`, cache)
  if (compile(source, cache).cachedDataRejected === true) {
    console.warn(`warning: V8 rejects the code cache it just wrote for ${BUNDLE}`)
  }
}

/**
 * The engine's Piscina worker as one ES module file, in place of tsc's output: a thread that
 * starts loads one file instead of resolving and linking the worker's module graph (about 30 ms
 * less per thread start). Its graph uses no import.meta.url or dynamic import, so nothing in
 * it looks for files beside it.
 */
async function bundleWorker(): Promise<void> {
  const worker = join(ROOT, 'dist', 'workers', 'engine.worker.js')
  await build({
    entryPoints: [worker],
    outfile: worker,
    allowOverwrite: true,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
  })
}

await bundle()
await bundleWorker()
await writeCodeCache()
