// Dependency directions the compiler cannot see (house style §3), checked by a regex over import
// lines. tsconfig.core.json already keeps Node globals out of the pure core; this adds who may
// import whom. Plant a violation in a file under src/parse/ to see it fail.
// Since #8 the core's signatures come from src/types.ts (not threads/jobs.ts), the content
// hash from the src/hash.ts leaf, engine/config.ts sits below engine/route.ts, and CLI commands
// share their types through cli/io.ts rather than the composition root.
import { readdirSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { fileURLToPath } from 'node:url'
import { posix } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
// `import x from 'm'`, `export { y } from 'm'`, `import 'm'` (also across lines), `import('m')`.
const STATIC_RE = /^\s*(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,]+?\s+from\s+)?['"]([^'"]+)['"]/
const IMPORT_RE = new RegExp(`${STATIC_RE.source}|\\bimport\\(\\s*['"]([^'"]+)['"]\\s*\\)`, 'gm')
const PURE = /^(src\/(parse|match|apply|text)\/|src\/(types|errors|result|warnings)$)/
const isNode = (spec: string): boolean =>
  spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0] ?? '')

const JOBS = 'src/coordinator/jobs'
const WORKER_EFFECTS = new Set([
  'src/coordinator/verify',
  'src/coordinator/verify-job',
  'src/coordinator/read-fs',
  // A history replay's commit compute (#10): the engine's compute on entries it is sent.
  'src/replay/commit',
  'src/replay/tree',
])
// Leaves: imported by everyone, importing only each other. src/lsp/types holds the diagnostics
// report shapes that an ApplyResult carries, so types.ts may reference it. src/warnings names the
// Warning codes (#11).
const LEAVES = new Set([
  'src/types',
  'src/errors',
  'src/result',
  'src/log',
  'src/hash',
  'src/warnings',
])
const DATA_LEAVES = new Set(['src/lsp/types'])
// Import lines naming the content hash; it comes from the leaf, never through journal/ (#8).
const HASH_IMPORT_RE =
  /^\s*import\s+(?:type\s+)?\{[^}]*\b(?:hashBytes|HASH_PREFIX)\b[^}]*\}\s+from\s+['"]([^'"]+)['"]/gm

/** Broken rules for one file (path relative to the repo root, '/' separated). */
function violations(file: string, source: string): string[] {
  const found: string[] = []
  const pure = PURE.test(file.replace(/\.ts$/, ''))
  const worker = file.startsWith('workers/')
  // Composition roots: the CLI and MCP server, and the language-server pool's own thread.
  const root =
    /^src\/(cli|mcp)\//.test(file) || file === 'src/lsp/host.ts' || !file.startsWith('src/')
  for (const m of source.matchAll(IMPORT_RE)) {
    const spec = m[1] ?? m[2] ?? ''
    const rel = spec.startsWith('.') ? posix.join(posix.dirname(file), spec) : null
    const target = rel?.replace(/\.(js|ts)$/, '') ?? ''
    const bad = (rule: string) => found.push(`${file} imports '${spec}': ${rule}`)
    if (!root && /^(lsp-adapters|workers)\//.test(target)) {
      bad('only cli/, mcp/ and lsp/host.ts may import lsp-adapters/ or workers/')
    }
    if ((pure || worker) && isNode(spec)) bad('the pure core and workers may not use Node modules')
    if (pure && /^src\/(journal|lsp|coordinator)\//.test(target) && !DATA_LEAVES.has(target)) {
      bad('pure modules may not import effectful modules')
    }
    if (pure && spec.includes('job-pool')) bad('pure modules may not import the job pool')
    const leaf = LEAVES.has(file.replace(/\.ts$/, ''))
    if (leaf && rel !== null && !LEAVES.has(target) && !DATA_LEAVES.has(target)) {
      bad('leaves import only other leaves')
    }
    if (file === 'src/engine/config.ts' && target === 'src/coordinator/route') {
      bad('configuration sits below the coordinator: route.ts may read config, not the reverse')
    }
    if (target === 'src/cli/main' && file.startsWith('src/')) {
      bad('only bin/ imports the CLI composition root; shared CLI types live in cli/io.ts')
    }
    // Since #9 a worker reads its own files: it may also use the verification module and the
    // filesystem calls it is given (D-060), never the journal, the pool or the engine.
    const allowedForWorker =
      PURE.test(target) ||
      target === JOBS ||
      WORKER_EFFECTS.has(target) ||
      target.startsWith('workers/')
    if (worker && rel !== null && !allowedForWorker) {
      bad(
        'workers import only pure modules, coordinator/jobs, the verification module and the replay compute',
      )
    }
  }
  for (const m of source.matchAll(HASH_IMPORT_RE)) {
    const spec = m[1] ?? ''
    const target = spec.startsWith('.') ? posix.join(posix.dirname(file), spec) : spec
    if (target.replace(/\.(js|ts)$/, '') !== 'src/hash') {
      found.push(`${file} imports the content hash from '${spec}': it lives in src/hash.ts`)
    }
  }
  return found
}

/** Import cycles (type-only imports count) among `sources`, each as the list of its modules. */
function cycles(sources: ReadonlyMap<string, string>): string[][] {
  const edges = new Map<string, string[]>()
  for (const [file, source] of sources) {
    const targets: string[] = []
    for (const m of source.matchAll(IMPORT_RE)) {
      const spec = m[1] ?? m[2] ?? ''
      if (!spec.startsWith('.')) continue
      const target = posix.join(posix.dirname(file), spec).replace(/\.js$/, '.ts')
      if (sources.has(target)) targets.push(target)
    }
    edges.set(file, targets)
  }
  // Depth-first search; a back edge to a module still on the path closes a cycle.
  const found: string[][] = []
  const done = new Set<string>()
  const path: string[] = []
  const visit = (file: string): void => {
    const at = path.indexOf(file)
    if (at !== -1) {
      found.push([...path.slice(at), file])
      return
    }
    if (done.has(file)) return
    path.push(file)
    for (const target of edges.get(file) ?? []) visit(target)
    path.pop()
    done.add(file)
  }
  for (const file of sources.keys()) visit(file)
  return found
}

function sourceFiles(dir: string): string[] {
  const entries = readdirSync(posix.join(ROOT, dir), { withFileTypes: true, recursive: true })
  return entries
    .filter((e) => e.isFile() && /\.(ts|js|mjs)$/.test(e.name))
    .map((e) => posix.relative(ROOT, posix.join(e.parentPath, e.name)))
}

describe('layering', () => {
  it('keeps every import in src/ and workers/ pointing the allowed way', () => {
    const files = ['src', 'workers'].flatMap((dir) => sourceFiles(dir))
    expect(files.length).toBeGreaterThan(0)
    const read = (f: string): string => readFileSync(posix.join(ROOT, f), 'utf8')
    expect(files.flatMap((f) => violations(f, read(f)))).toEqual([])
  })

  it('has no import cycles in src/ and workers/, type-only imports included (#8)', () => {
    const files = ['src', 'workers']
      .flatMap((dir) => sourceFiles(dir))
      .filter((f) => f.endsWith('.ts'))
    const sources = new Map(files.map((f) => [f, readFileSync(posix.join(ROOT, f), 'utf8')]))
    expect(cycles(sources)).toEqual([])
  })

  it('finds a planted type-only cycle', () => {
    const sources = new Map([
      ['src/cli/main.ts', "import { runApply } from './commands/apply.js'"],
      ['src/cli/commands/apply.ts', "import type { CliIo } from '../main.js'"],
      ['src/cli/io.ts', ''],
    ])
    expect(cycles(sources)).toEqual([
      ['src/cli/main.ts', 'src/cli/commands/apply.ts', 'src/cli/main.ts'],
    ])
  })

  it('catches planted violations', () => {
    const count = (file: string, source: string): number => violations(file, source).length
    expect(count('src/parse/x.ts', "import { readFile } from 'node:fs'")).toBe(1)
    expect(count('src/match/x.ts', "import type { E } from '../coordinator/engine.js'")).toBe(1)
    expect(count('src/apply/x.ts', "import type { J } from '../coordinator/jobs.js'")).toBe(1)
    expect(count('src/apply/x.ts', "import type { ComputeInput } from '../types.js'")).toBe(0)
    expect(count('workers/m.ts', "import { JOB_PROTOCOL } from '../src/coordinator/jobs.js'")).toBe(
      0,
    )
    expect(count('src/engine/config.ts', "import { X } from './coordinator/route.js'")).toBe(1)
    expect(count('src/cli/commands/x.ts', "import type { CliIo } from '../main.js'")).toBe(1)
    expect(count('src/cli/commands/x.ts', "import type { CliIo } from '../types.js'")).toBe(0)
    expect(count('src/coordinator/x.ts', "import { hashBytes } from '../journal/hash.js'")).toBe(1)
    expect(count('src/journal/x.ts', "import { hashBytes } from '../hash.js'")).toBe(0)
    expect(count('src/hash.ts', "import type { Step } from './journal/types.js'")).toBe(1)
    expect(count('src/errors.ts', "import type { Logger } from './log.js'")).toBe(0)
    expect(count('src/journal/x.ts', "export { run } from '../../workers/match.worker.js'")).toBe(1)
    expect(count('src/cli/x.ts', "import { ADAPTERS } from '../../lsp-adapters/index.js'")).toBe(0)
    expect(count('workers/m.ts', "import {\n  x,\n} from '../src/journal/journal.js'")).toBe(1)
    expect(count('workers/m.ts', "import { parsePlan } from '../src/parse/index.js'")).toBe(0)
    expect(count('src/types.ts', "const m = await import('fs')")).toBe(1)
  })
})
