// Dependency directions the compiler cannot see, checked by a regex over import lines. The
// folders and what each may import come from the map in CONTRIBUTING.md, so the map cannot drift
// from the tree; tsconfig.core.json keeps Node globals out of the pure core. Plant a violation
// (an import of src/engine/ from src/parse/, say) to see it fail.
import { readdirSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { fileURLToPath } from 'node:url'
import { posix } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
// `import x from 'm'`, `export { y } from 'm'`, `import 'm'` (also across lines), `import('m')`.
const STATIC_RE = /^\s*(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,]+?\s+from\s+)?['"]([^'"]+)['"]/
const IMPORT_RE = new RegExp(`${STATIC_RE.source}|\\bimport\\(\\s*['"]([^'"]+)['"]\\s*\\)`, 'gm')
const isNode = (spec: string): boolean =>
  spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0] ?? '')

/** Folder -> the folders it may import, as CONTRIBUTING.md's map states them. */
export function mapOf(markdown: string): Map<string, Set<string>> {
  const start = markdown.indexOf('<!-- map:start -->')
  const end = markdown.indexOf('<!-- map:end -->')
  if (start === -1 || end < start) throw new Error('CONTRIBUTING.md has no map markers')
  const map = new Map<string, Set<string>>()
  for (const line of markdown.slice(start, end).split('\n')) {
    const cells = line.split('|').map((c) => c.trim())
    const folder = /^`(src\/[\w-]+\/)`$/.exec(cells[1] ?? '')?.[1]
    if (folder === undefined) continue
    const allowed = [...(cells[3] ?? '').matchAll(/`([\w-]+)`/g)].map((m) => `src/${m[1]}/`)
    map.set(folder, new Set(allowed))
  }
  return map
}

const MAP = mapOf(readFileSync(posix.join(ROOT, 'CONTRIBUTING.md'), 'utf8'))
/** Pure folders: no Node modules, and nothing effectful. */
const PURE_FOLDERS = new Set(['src/text/', 'src/parse/', 'src/match/', 'src/apply/', 'src/render/'])
// Leaves: the src/*.ts files, imported by everyone, importing only each other.
const LEAVES = new Set([
  'src/types',
  'src/errors',
  'src/result',
  'src/log',
  'src/hash',
  'src/warnings',
  'src/abort',
  'src/defaults',
  'src/compiled-file',
])
// Plain data that the leaves and every folder may name: the diagnostics report an ApplyResult
// carries.
const DATA_LEAVES = new Set(['src/lsp/reports'])
// What a worker thread may load besides the pure core and threads/jobs: the modules it runs.
const WORKER_MODULES = new Set([
  'src/threads/jobs',
  'src/result',
  'src/engine/verify',
  'src/engine/verify-job',
  'src/workspace/read-fs',
  'src/replay/commit',
  'src/replay/tree',
])
// Import lines naming the content hash; it comes from the leaf, never through another module.
const HASH_IMPORT_RE =
  /^\s*import\s+(?:type\s+)?\{[^}]*\b(?:hashBytes|HASH_PREFIX)\b[^}]*\}\s+from\s+['"]([^'"]+)['"]/gm

/** The folder (`src/x/`) or leaf (`src/x`) a module belongs to; other trees by their top folder. */
function unitOf(module: string): string {
  const folder = /^src\/[\w-]+\//.exec(module)?.[0]
  if (folder !== undefined) return folder
  if (module.startsWith('src/')) return module.replace(/\.(js|ts)$/, '')
  return `${module.split('/')[0] ?? ''}/`
}

/** Broken rules for one file (path relative to the repo root, '/' separated). */
function violations(file: string, source: string): string[] {
  const found: string[] = []
  const from = unitOf(file)
  const pure = PURE_FOLDERS.has(from)
  const worker = file.startsWith('workers/')
  for (const m of source.matchAll(IMPORT_RE)) {
    const spec = m[1] ?? m[2] ?? ''
    const bad = (rule: string) => found.push(`${file} imports '${spec}': ${rule}`)
    if ((pure || worker) && isNode(spec)) bad('the pure core and workers may not use Node modules')
    if (!spec.startsWith('.')) continue
    const target = posix.join(posix.dirname(file), spec).replace(/\.(js|ts)$/, '')
    const to = unitOf(target)
    if (to === 'lsp-adapters/' || to === 'workers/') {
      const loader = from === 'src/cli/' || file === 'src/lsp/host.ts' || !file.startsWith('src/')
      if (!loader && from !== to)
        bad('only cli/ and lsp/host.ts may load lsp-adapters/ or workers/')
      continue
    }
    if (target === 'src/cli/main' && file.startsWith('src/')) {
      bad('only bin/ imports the CLI composition root; commands share types through cli/io.ts')
    }
    if (worker) {
      if (!PURE_FOLDERS.has(to) && !WORKER_MODULES.has(target) && to !== 'workers/') {
        bad('workers import only the pure core, threads/jobs and the modules a worker runs')
      }
      continue
    }
    if (!file.startsWith('src/') || from === to || file === 'src/index.ts') continue
    if (DATA_LEAVES.has(target)) continue
    if (LEAVES.has(from)) {
      if (!LEAVES.has(to)) bad('leaves import only other leaves')
      continue
    }
    if (LEAVES.has(to)) continue
    if (from === 'src/cli/' && to === 'src/server/') {
      if (file !== 'src/cli/commands/serve.ts')
        bad('cli/ reaches server/ only from cli/commands/serve.ts')
      continue
    }
    const allowed = MAP.get(from)
    if (allowed === undefined) bad(`${from} is not in CONTRIBUTING.md's map`)
    else if (!allowed.has(to)) bad(`CONTRIBUTING.md's map does not let ${from} import ${to}`)
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
  it("has every folder of src/ in CONTRIBUTING.md's map, and no other", () => {
    const folders = readdirSync(posix.join(ROOT, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `src/${e.name}/`)
      .sort()
    expect(folders.length).toBeGreaterThan(0)
    expect([...MAP.keys()].sort()).toEqual(folders)
    // Every folder a row allows is itself a row: the map names no folder that is not there.
    const named = [...MAP.values()].flatMap((allowed) => [...allowed])
    expect(named.filter((f) => !MAP.has(f))).toEqual([])
  })

  it('keeps every import in src/ and workers/ pointing the allowed way', () => {
    const files = ['src', 'workers'].flatMap((dir) => sourceFiles(dir))
    expect(files.length).toBeGreaterThan(0)
    const read = (f: string): string => readFileSync(posix.join(ROOT, f), 'utf8')
    expect(files.flatMap((f) => violations(f, read(f)))).toEqual([])
  })

  it('has no import cycles in src/ and workers/, type-only imports included', () => {
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

  it('reads the map as CONTRIBUTING.md writes it', () => {
    const map = mapOf(
      '<!-- map:start -->\n| Folder | Job | May import |\n|---|---|---|\n' +
        '| `src/text/` | lines | |\n| `src/apply/` | bytes | `text` `match` |\n<!-- map:end -->',
    )
    expect([...map]).toEqual([
      ['src/text/', new Set()],
      ['src/apply/', new Set(['src/text/', 'src/match/'])],
    ])
  })

  it('catches planted violations', () => {
    const count = (file: string, source: string): number => violations(file, source).length
    expect(count('src/parse/x.ts', "import { readFile } from 'node:fs'")).toBe(1)
    expect(count('src/match/x.ts', "import type { E } from '../engine/engine.js'")).toBe(1)
    expect(count('src/apply/x.ts', "import type { J } from '../threads/jobs.js'")).toBe(1)
    expect(count('src/apply/x.ts', "import type { ComputeInput } from '../types.js'")).toBe(0)
    expect(count('src/parse/x.ts', "import { lines } from '../text/lines.js'")).toBe(0)
    expect(count('src/text/x.ts', "import { parsePlan } from '../parse/index.js'")).toBe(1)
    expect(count('workers/m.ts', "import { JOB_PROTOCOL } from '../src/threads/jobs.js'")).toBe(0)
    expect(
      count('workers/m.ts', "import { WorkerPool } from '../src/threads/worker-pool.js'"),
    ).toBe(1)
    expect(count('src/defaults.ts', "import { X } from './engine/config.js'")).toBe(1)
    expect(count('src/replay/x.ts', "import { X } from '../engine/config.js'")).toBe(1)
    expect(count('src/threads/x.ts', "import type { R } from '../replay/commit.js'")).toBe(1)
    expect(count('src/server/x.ts', "import { renderFileLine } from '../cli/render.js'")).toBe(1)
    expect(count('src/cli/commands/apply.ts', "import { X } from '../../server/http.js'")).toBe(1)
    expect(count('src/cli/commands/serve.ts', "import { X } from '../../server/http.js'")).toBe(0)
    expect(count('src/cli/commands/x.ts', "import type { CliIo } from '../main.js'")).toBe(1)
    expect(count('src/cli/commands/x.ts', "import type { CliIo } from '../io.js'")).toBe(0)
    expect(count('src/engine/x.ts', "import { hashBytes } from '../journal/hash.js'")).toBe(1)
    expect(count('src/journal/x.ts', "import { hashBytes } from '../hash.js'")).toBe(0)
    expect(count('src/hash.ts', "import type { Step } from './journal/records.js'")).toBe(1)
    expect(count('src/errors.ts', "import type { Logger } from './log.js'")).toBe(0)
    expect(count('src/types.ts', "import type { R } from './lsp/reports.js'")).toBe(0)
    expect(count('src/journal/x.ts', "export { run } from '../../workers/engine.worker.js'")).toBe(
      1,
    )
    expect(count('src/cli/x.ts', "import { ADAPTERS } from '../../lsp-adapters/index.js'")).toBe(0)
    expect(count('workers/m.ts', "import {\n  x,\n} from '../src/journal/journal.js'")).toBe(1)
    expect(count('workers/m.ts', "import { parsePlan } from '../src/parse/index.js'")).toBe(0)
    expect(count('src/types.ts', "const m = await import('fs')")).toBe(0)
    expect(count('src/text/x.ts', "const m = await import('fs')")).toBe(1)
    expect(count('src/nowhere/x.ts', "import { X } from '../engine/engine.js'")).toBe(1)
  })
})
