// Decides whether the language-server sidecar gives an agent the diagnostics of the
// change it just made, how fast, and at what memory cost, against the same edits handled "the
// OpenCode way" (a fixed 3 s wait; a 150 ms debounce) on the same servers. TypeScript is
// `tsc --lsp` (pull), Python is pyright (versioned push), each on a seeded 20-module project.
// Every sample is checked against the state its edit must produce (see `expected` below): a
// result that does not show it is stale. Samples are hand-timed rather than run by tinybench,
// because each edit must differ from the last, be checked for staleness, and may take seconds.
// Run: npm run build && node dist/bench/lsp.bench.js   (tables paste into bench/RESULTS.md)
import { mkdtemp, readdir, readlink, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import type { DocumentDiagnosticReport } from 'vscode-languageserver-protocol'
import { pyrightAdapter, typescriptAdapter } from '../lsp-adapters/index.js'
import type { LspAdapter } from '../src/lsp/adapter.js'
import { startLspClient } from '../src/lsp/client.js'
import type { LspClient, PoolStatus } from '../src/lsp/client-types.js'
import { resolveCommand } from '../src/lsp/find-executable.js'
import { createSession, LspSession } from '../src/lsp/session.js'
import type { RawDiagnostic } from '../src/lsp/session-types.js'
import type { DiagnosticsReport } from '../src/lsp/reports.js'
import { createEngine, type Engine } from '../src/index.js'
import {
  generateLspProject,
  lspCallLine,
  lspLabelLine,
  lspModulePath,
  lspSignatureLine,
  writeLspProject,
  type LspLanguage,
} from './generate.js'
import { loadLine, machineLine, markdownTable, ms } from './report.js'

// ---- sizes: the whole bench stays near 4 minutes on 2 cores -----------------------------------

const QUICK = process.env['LSP_BENCH_QUICK'] === '1'
const MODULES = 20
const SEED = 3
/** Module whose label line the type-error edits change, and whose importer is module + 1. */
const TYPE_ERROR_MODULE = 5
/** Module whose exported function's signature changes; module + 1 (kept open) calls it. */
const SIGNATURE_MODULE = 10
const WARM_AB = QUICK ? 3 : 15 // each of introduce / fix, through the engine
const WARM_CD = QUICK ? 2 : 8 // each of signature break / restore, through the engine
const COLD = QUICK ? 1 : 4 // fresh engine (pool, thread and server) per sample
const DEBOUNCE_AB = QUICK ? 2 : 6
const DEBOUNCE_CD = QUICK ? 1 : 4
const FIXED_PER_KIND = QUICK ? 1 : 2
const COLD_BASELINE = QUICK ? 1 : 3
const MEMORY_ROOTS = QUICK ? 4 : 16
const PY_MEMORY_ROOTS = 4
const DEADLINE_MS = 10_000
const FIXED_WAIT_MS = 3_000
const DEBOUNCE_MS = 150
/** OpenCode's debounce also gives up after 3 s without quiet. */
const DEBOUNCE_CAP_MS = 3_000
const POLL_MS = 2

type Kind = 'introduce' | 'fix' | 'break-importer' | 'restore-importer'
const KIND_LABEL: Record<Kind, string> = {
  introduce: '(a) introduce type error',
  fix: '(b) fix it',
  'break-importer': '(c) signature change breaks open importer',
  'restore-importer': '(d) signature restored, importer clean',
}
const KINDS: readonly Kind[] = ['introduce', 'fix', 'break-importer', 'restore-importer']

const SERVERS: readonly { readonly language: LspLanguage; readonly adapter: LspAdapter }[] = [
  { language: 'typescript', adapter: typescriptAdapter },
  { language: 'python', adapter: pyrightAdapter },
]

// ---- small helpers ----------------------------------------------------------------------------

/** Nearest-rank percentile; NaN for no values (prints as "error", never as fast). */
function pct(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length))) - 1] as number
}

const sleep = (msToWait: number) => new Promise((r) => setTimeout(r, msToWait))
const mib = (bytes: number) => (bytes / 1024 ** 2).toFixed(0)

const tempDirs: string[] = []
async function tempDir(name: string): Promise<string> {
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), `patchloom-lsp-bench-${name}-`)))
  tempDirs.push(dir)
  return dir
}

/** Every server pid the bench saw (pool status and its own sessions), checked at the end. */
const seenPids = new Set<number>()

// ---- the edits and what each must produce -----------------------------------------------------

/** One edit: a single-line replacement, and where its effect must (or must not) show. */
interface Edit {
  readonly kind: Kind
  readonly file: string
  readonly from: string
  readonly to: string
  /** The file whose errors decide staleness, and the 1-based line the error must be on (or none). */
  readonly checkFile: string
  readonly errorLine: number | undefined
}

/** Tracks file texts so edits alternate (introduce, fix, ...) and every edit changes something. */
class ProjectState {
  readonly language: LspLanguage
  readonly texts = new Map<string, string>()
  #broken = false
  #signatureChanged = false

  constructor(language: LspLanguage) {
    this.language = language
    for (const [rel, text] of Object.entries(generateLspProject(language, MODULES, SEED).files))
      this.texts.set(rel, text)
  }

  get typeFile(): string {
    return lspModulePath(this.language, TYPE_ERROR_MODULE)
  }
  get exporter(): string {
    return lspModulePath(this.language, SIGNATURE_MODULE)
  }
  get importer(): string {
    return lspModulePath(this.language, SIGNATURE_MODULE + 1)
  }

  /** The next edit of this pair: introduce after fix and back, or break after restore and back. */
  next(pair: 'type' | 'signature'): Edit {
    const lang = this.language
    if (pair === 'type') {
      const clean = lspLabelLine(lang, TYPE_ERROR_MODULE)
      const bad =
        lang === 'typescript'
          ? clean.replace(': string', ': number')
          : clean.replace(': str', ': int')
      const [from, to] = this.#broken ? [bad, clean] : [clean, bad]
      this.#broken = !this.#broken
      return this.#edit(
        this.#broken ? 'introduce' : 'fix',
        this.typeFile,
        from,
        to,
        this.typeFile,
        bad,
      )
    }
    const clean = lspSignatureLine(lang, SIGNATURE_MODULE)
    const changed =
      lang === 'typescript'
        ? clean.replace('(x: number)', '(x: number, scale: number)')
        : clean.replace('(x: int)', '(x: int, scale: int)')
    const [from, to] = this.#signatureChanged ? [changed, clean] : [clean, changed]
    this.#signatureChanged = !this.#signatureChanged
    return this.#edit(
      this.#signatureChanged ? 'break-importer' : 'restore-importer',
      this.exporter,
      from,
      to,
      this.importer,
      lspCallLine(lang, SIGNATURE_MODULE + 1),
    )
  }

  #edit(
    kind: Kind,
    file: string,
    from: string,
    to: string,
    checkFile: string,
    errorAt: string,
  ): Edit {
    const before = this.texts.get(file) as string
    if (!before.includes(from)) throw new Error(`lsp.bench: ${file} lacks ${from}`)
    this.texts.set(file, before.replace(from, to))
    const lines = (this.texts.get(checkFile) as string).split('\n')
    const index = lines.indexOf(errorAt)
    const wantsError = kind === 'introduce' || kind === 'break-importer'
    if (wantsError && index === -1) throw new Error(`lsp.bench: ${checkFile} lacks ${errorAt}`)
    return { kind, file, from, to, checkFile, errorLine: wantsError ? index + 1 : undefined }
  }
}

/**
 * Staleness, by construction: after (a) the edited file must have an error on the changed line;
 * after (b) the edited file must have no error; after (c) the importer must have an error on its
 * call of the changed function; after (d) the importer must have no error. A file a method did
 * not report on counts as "no errors" (that is what the agent is shown). Anything else is stale.
 * `errorLines` are the 1-based lines of error-severity diagnostics in `edit.checkFile`.
 */
function isStale(edit: Edit, errorLines: readonly number[]): boolean {
  if (edit.errorLine === undefined) return errorLines.length > 0
  return !errorLines.includes(edit.errorLine)
}

function rawErrorLines(items: readonly RawDiagnostic[] | undefined): number[] {
  return (items ?? []).filter((d) => (d.severity ?? 1) === 1).map((d) => d.range.start.line + 1)
}

function reportErrorLines(report: DiagnosticsReport | undefined, rel: string): number[] {
  if (report === undefined) return []
  return [...report.introduced, ...report.remaining]
    .filter((d) => d.path === rel && d.severity === 'error')
    .map((d) => d.line)
}

function editsJson(edit: Edit): string {
  return JSON.stringify({
    edits: [{ path: edit.file, old_string: edit.from, new_string: edit.to }],
  })
}

// ---- samples ----------------------------------------------------------------------------------

interface Sample {
  readonly kind: Kind
  readonly ms: number
  readonly stale: boolean
  /** patchloom only: the server's own settle wait, its signal, and whether it settled. */
  readonly waitedMs?: number
  readonly signal?: string
  readonly settled?: boolean
}

type Method = 'patchloom adaptive' | 'fixed 3 s wait' | '150 ms debounce'
const METHODS: readonly Method[] = ['patchloom adaptive', 'fixed 3 s wait', '150 ms debounce']

interface ServerResults {
  warm: Map<Method, Sample[]>
  cold: Map<Method, Sample[]>
  applyOnly: number[]
}

/** A staleness note for the report: which edit, which method, what the agent would have seen. */
const staleNotes: string[] = []

// ---- patchloom through the engine ------------------------------------------------------------

async function engineApply(engine: Engine, state: ProjectState, edit: Edit): Promise<Sample> {
  const started = performance.now()
  const result = await engine.apply(editsJson(edit), { format: 'edits' })
  const elapsed = performance.now() - started
  const report = result.diagnostics
  const lines = reportErrorLines(report, edit.checkFile)
  const stale = isStale(edit, lines)
  if (stale)
    staleNotes.push(
      `patchloom ${state.language} ${edit.kind}: ${edit.checkFile} error lines [${lines.join(', ')}], ` +
        `expected ${edit.errorLine === undefined ? 'none' : `line ${edit.errorLine}`}; settled ` +
        `${String(report?.settled)}, signal ${report?.servers.map((s) => s.signal).join('+') ?? 'no report'}`,
    )
  return {
    kind: edit.kind,
    ms: elapsed,
    stale,
    ...(report === undefined
      ? { settled: false, signal: 'no report' }
      : {
          waitedMs: report.waitedMs,
          signal: [...new Set(report.servers.map((s) => s.signal))].join('+'),
          settled: report.settled,
        }),
  }
}

function newEngine(root: string, adapter: LspAdapter): Engine {
  return createEngine({
    root,
    workers: false,
    diagnostics: { deadlineMs: DEADLINE_MS, servers: { adapters: [adapter.id] } },
  })
}

async function recordPids(engineOrClient: { status(): Promise<PoolStatus> } | LspClient) {
  const status = await engineOrClient.status()
  for (const server of status.servers) if (server.pid !== undefined) seenPids.add(server.pid)
  return status
}

async function patchloomWarm(
  language: LspLanguage,
  adapter: LspAdapter,
  results: ServerResults,
): Promise<void> {
  const root = await tempDir(`${language}-warm`)
  const state = new ProjectState(language)
  await writeLspProject(root, { language, files: Object.fromEntries(state.texts) })
  const engine = newEngine(root, adapter)
  // The pool's pids are only visible through a client; a second client would start its own
  // servers, so the engine's are checked by cwd at the end (leftoverProcesses).
  try {
    // Keep the importer open (synced before any edit), and warm up both edit pairs once.
    await engine.diagnostics([state.importer, state.typeFile, state.exporter])
    for (const pair of ['type', 'type', 'signature', 'signature'] as const)
      await engine.apply(editsJson(state.next(pair)), { format: 'edits' })
    const samples: Sample[] = []
    for (let i = 0; i < 2 * WARM_AB; i++)
      samples.push(await engineApply(engine, state, state.next('type')))
    for (let i = 0; i < 2 * WARM_CD; i++)
      samples.push(await engineApply(engine, state, state.next('signature')))
    results.warm.set('patchloom adaptive', samples)
    // The same edits with diagnostics off: what the edit itself costs in this run.
    for (let i = 0; i < 2 * WARM_AB; i++) {
      const started = performance.now()
      await engine.apply(editsJson(state.next('type')), { format: 'edits', diagnostics: false })
      results.applyOnly.push(performance.now() - started)
    }
  } finally {
    await engine.close()
  }
}

async function patchloomCold(
  language: LspLanguage,
  adapter: LspAdapter,
  results: ServerResults,
): Promise<void> {
  const samples: Sample[] = []
  for (let i = 0; i < COLD; i++) {
    const root = await tempDir(`${language}-cold`)
    const state = new ProjectState(language)
    await writeLspProject(root, { language, files: Object.fromEntries(state.texts) })
    const engine = newEngine(root, adapter)
    try {
      samples.push(await engineApply(engine, state, state.next('type')))
    } finally {
      await engine.close()
    }
  }
  results.cold.set('patchloom adaptive', samples)
}

// ---- the OpenCode way, on LspSession directly ------------------------------------------------

type Waiting = 'fixed' | 'debounce'

async function startSession(adapter: LspAdapter, root: string): Promise<LspSession> {
  const resolved = resolveCommand(adapter, { projectRoot: root })
  if (!resolved.ok) throw new Error(resolved.message)
  const session = createSession({ adapter, root, command: resolved.command })
  if (!(session instanceof LspSession)) throw new Error('lsp.bench: expected an LspSession')
  await session.start()
  if (session.pid !== undefined) seenPids.add(session.pid)
  return session
}

/**
 * What a push server last published for these files, without waiting: a zero deadline makes
 * LspSession answer at once with its latest publishDiagnostics per path (absent if none). The
 * arrays are the session's own, replaced on every publish, so identity tells when one arrived.
 */
async function lastPublished(
  session: LspSession,
  paths: readonly string[],
): Promise<ReadonlyMap<string, readonly RawDiagnostic[]>> {
  return (await session.diagnostics(paths, 0)).byPath
}

/** textDocument/diagnostic for each file, as a pull-only client asks at the end of its wait. */
async function pullNow(
  session: LspSession,
  paths: readonly string[],
): Promise<ReadonlyMap<string, readonly RawDiagnostic[]>> {
  const byPath = new Map<string, readonly RawDiagnostic[]>()
  await Promise.all(
    paths.map(async (file) => {
      try {
        const report = await session.request<DocumentDiagnosticReport>('textDocument/diagnostic', {
          textDocument: { uri: pathToFileURL(file).href },
        })
        if (report.kind === 'full') byPath.set(file, report.items as RawDiagnostic[])
      } catch {
        // A failed pull shows the agent nothing, which is what OpenCode would report.
      }
    }),
  )
  return byPath
}

/**
 * Waits the OpenCode way after the change was pushed at `pushedAt`, then takes the diagnostics.
 * fixed: 3 s. debounce: until 150 ms pass with no new publishDiagnostics for the watched files
 * (the clock starts at the push; capped at 3 s). For tsc, which pushes nothing for source files,
 * both end with a pull; for pyright, the latest publish is taken.
 */
async function waitTheOpenCodeWay(
  session: LspSession,
  pull: boolean,
  waiting: Waiting,
  paths: readonly string[],
  pushedAt: number,
): Promise<ReadonlyMap<string, readonly RawDiagnostic[]>> {
  if (waiting === 'fixed' || pull) {
    await sleep(
      Math.max(
        0,
        (waiting === 'fixed' ? FIXED_WAIT_MS : DEBOUNCE_MS) - (performance.now() - pushedAt),
      ),
    )
    return pull ? pullNow(session, paths) : lastPublished(session, paths)
  }
  let seen = await lastPublished(session, paths)
  let lastPublishAt = pushedAt
  for (;;) {
    await sleep(POLL_MS)
    const now = performance.now()
    const current = await lastPublished(session, paths)
    if (paths.some((p) => current.get(p) !== seen.get(p))) lastPublishAt = now
    seen = current
    if (now - lastPublishAt >= DEBOUNCE_MS || now - pushedAt >= DEBOUNCE_CAP_MS) return current
  }
}

/** Writes the edited file, pushes it (didChange + didSave), waits, and checks what came back. */
async function openCodeEdit(
  session: LspSession,
  root: string,
  state: ProjectState,
  edit: Edit,
  waiting: Waiting,
  startedAt?: number,
): Promise<Sample> {
  const abs = (rel: string) => path.join(root, rel)
  const text = state.texts.get(edit.file) as string
  const pushedAt = startedAt ?? performance.now()
  await writeFile(abs(edit.file), text)
  session.sync([{ path: abs(edit.file), text }])
  session.save([abs(edit.file)])
  const paths = [...new Set([abs(edit.file), abs(edit.checkFile)])]
  const byPath = await waitTheOpenCodeWay(
    session,
    session.adapter.settle.pull,
    waiting,
    paths,
    pushedAt,
  )
  const elapsed = performance.now() - (startedAt ?? pushedAt)
  const lines = rawErrorLines(byPath.get(abs(edit.checkFile)))
  const stale = isStale(edit, lines)
  // Untimed: let a push server finish with this version, so the next sample starts from a
  // settled server as an agent's next edit (seconds later) would, not from one still busy.
  if (!session.adapter.settle.pull) await session.diagnostics([abs(edit.file)], DEADLINE_MS)
  if (stale)
    staleNotes.push(
      `${waiting} ${state.language} ${edit.kind}${startedAt === undefined ? '' : ' (cold)'}: ` +
        `${edit.checkFile} error lines [${lines.join(', ')}], expected ` +
        `${edit.errorLine === undefined ? 'none' : `line ${edit.errorLine}`}`,
    )
  return { kind: edit.kind, ms: elapsed, stale }
}

async function openCodeWarm(
  language: LspLanguage,
  adapter: LspAdapter,
  waiting: Waiting,
  results: ServerResults,
): Promise<void> {
  const root = await tempDir(`${language}-${waiting}`)
  const state = new ProjectState(language)
  await writeLspProject(root, { language, files: Object.fromEntries(state.texts) })
  const session = await startSession(adapter, root)
  try {
    const open = [state.typeFile, state.exporter, state.importer].map((rel) => ({
      path: path.join(root, rel),
      text: state.texts.get(rel) as string,
    }))
    session.sync(open)
    // Setup only: let the server finish its first analysis before any timed edit.
    await session.diagnostics(
      open.map((d) => d.path),
      30_000,
    )
    const ab = waiting === 'fixed' ? FIXED_PER_KIND : DEBOUNCE_AB
    const cd = waiting === 'fixed' ? FIXED_PER_KIND : DEBOUNCE_CD
    const samples: Sample[] = []
    for (let i = 0; i < 2 * ab; i++)
      samples.push(await openCodeEdit(session, root, state, state.next('type'), waiting))
    for (let i = 0; i < 2 * cd; i++)
      samples.push(await openCodeEdit(session, root, state, state.next('signature'), waiting))
    results.warm.set(waiting === 'fixed' ? 'fixed 3 s wait' : '150 ms debounce', samples)
  } finally {
    await session.stop()
  }
}

/** Cold: the clock starts before the server does; the edited file is opened with its new text. */
async function openCodeCold(
  language: LspLanguage,
  adapter: LspAdapter,
  waiting: Waiting,
  results: ServerResults,
): Promise<void> {
  const samples: Sample[] = []
  for (let i = 0; i < COLD_BASELINE; i++) {
    const root = await tempDir(`${language}-${waiting}-cold`)
    const state = new ProjectState(language)
    await writeLspProject(root, { language, files: Object.fromEntries(state.texts) })
    const edit = state.next('type')
    const startedAt = performance.now()
    const session = await startSession(adapter, root)
    try {
      samples.push(await openCodeEdit(session, root, state, edit, waiting, startedAt))
    } finally {
      await session.stop()
    }
  }
  results.cold.set(waiting === 'fixed' ? 'fixed 3 s wait' : '150 ms debounce', samples)
}

// ---- memory -----------------------------------------------------------------------------------

interface MemoryRow {
  readonly label: string
  readonly live: number
  readonly rss: readonly number[]
  readonly touchMs?: readonly number[]
}

async function memoryProjects(count: number, language: LspLanguage): Promise<string[]> {
  const root = await tempDir(`memory-${language}`)
  const files: string[] = []
  for (let i = 0; i < count; i++) {
    const dir = path.join(root, `p${String(i).padStart(2, '0')}`)
    const project = generateLspProject(language, 3, SEED + i)
    await writeLspProject(dir, project)
    files.push(path.join(dir, lspModulePath(language, 2)))
  }
  return files
}

function rssOf(status: PoolStatus, adapter: string): number[] {
  return status.servers.filter((s) => s.adapter === adapter).map((s) => s.rssBytes ?? 0)
}

async function memory(): Promise<MemoryRow[]> {
  const rows: MemoryRow[] = []
  const tsFiles = await memoryProjects(MEMORY_ROOTS, 'typescript')
  const pyFiles = await memoryProjects(PY_MEMORY_ROOTS, 'python')
  const workspace = path.dirname(path.dirname(tsFiles[0] as string))
  const client = startLspClient({
    workspaceRoot: workspace,
    maxServers: MEMORY_ROOTS,
    adapters: ['typescript'],
  })
  try {
    for (let i = 0; i < tsFiles.length; i++) {
      await client.diagnostics([tsFiles[i] as string], { deadlineMs: 30_000 })
      if (i + 1 === 1 || i + 1 === 4 || i + 1 === tsFiles.length) {
        const status = await recordPids(client)
        const rss = rssOf(status, 'typescript')
        rows.push({
          label: `typescript, ${i + 1} root${i === 0 ? '' : 's'}`,
          live: rss.length,
          rss,
        })
      }
    }
  } finally {
    await client.close()
  }
  const pyWorkspace = path.dirname(path.dirname(pyFiles[0] as string))
  const pyClient = startLspClient({
    workspaceRoot: pyWorkspace,
    maxServers: PY_MEMORY_ROOTS,
    adapters: ['pyright'],
  })
  try {
    for (let i = 0; i < pyFiles.length; i++) {
      await pyClient.diagnostics([pyFiles[i] as string], { deadlineMs: 30_000 })
      if (i + 1 === 1 || i + 1 === pyFiles.length) {
        const rss = rssOf(await recordPids(pyClient), 'pyright')
        rows.push({ label: `pyright, ${i + 1} root${i === 0 ? '' : 's'}`, live: rss.length, rss })
      }
    }
  } finally {
    await pyClient.close()
  }
  // Eviction: a cap of 2, then every TypeScript root in turn (each touch past the second starts
  // a server and stops the least recently used one).
  const evicting = startLspClient({
    workspaceRoot: workspace,
    maxServers: 2,
    adapters: ['typescript'],
  })
  try {
    const touchMs: number[] = []
    let maxLive = 0
    for (const file of tsFiles) {
      const started = performance.now()
      await evicting.diagnostics([file], { deadlineMs: 30_000 })
      touchMs.push(performance.now() - started)
      maxLive = Math.max(maxLive, (await recordPids(evicting)).servers.length)
    }
    const rss = rssOf(await recordPids(evicting), 'typescript')
    rows.push({
      label: `typescript, maxServers 2, ${tsFiles.length} roots touched (max live seen ${maxLive})`,
      live: rss.length,
      rss,
      touchMs,
    })
  } finally {
    await evicting.close()
  }
  return rows
}

// ---- leftovers --------------------------------------------------------------------------------

function isAlive(pid: number): boolean {
  for (const target of [pid, -pid]) {
    try {
      process.kill(target, 0)
      return true
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') return true
    }
  }
  return false
}

/** Processes still alive among the servers seen, plus any whose cwd is one of the temp dirs. */
async function leftoverProcesses(): Promise<string[]> {
  const left = [...seenPids].filter(isAlive).map((pid) => `pid ${pid} (or its group)`)
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue
    const cwd = await readlink(`/proc/${entry}/cwd`).catch(() => '')
    if (tempDirs.some((dir) => cwd === dir || cwd.startsWith(dir + path.sep)))
      left.push(`pid ${entry} (cwd ${cwd})`)
  }
  return left
}

// ---- printing ---------------------------------------------------------------------------------

function staleCell(samples: readonly Sample[]): string {
  return `${samples.filter((s) => s.stale).length}/${samples.length}`
}

function printLatency(all: Map<LspLanguage, ServerResults>): void {
  console.log(
    '\n### patchloom: edit to diagnostics through the engine (engine.apply with diagnostics: true)\n',
  )
  const rows: string[][] = []
  for (const { language, adapter } of SERVERS) {
    const results = all.get(language)
    if (results === undefined) continue
    const server = `${adapter.name} (${adapter.settle.pull ? 'pull' : 'versioned push'})`
    const cold = results.cold.get('patchloom adaptive') ?? []
    const warm = results.warm.get('patchloom adaptive') ?? []
    const row = (state: string, kind: string, samples: readonly Sample[]) => {
      const waited = samples.flatMap((s) => (s.waitedMs === undefined ? [] : [s.waitedMs]))
      rows.push([
        server,
        state,
        kind,
        String(samples.length),
        ms(
          pct(
            samples.map((s) => s.ms),
            0.5,
          ),
        ),
        ms(
          pct(
            samples.map((s) => s.ms),
            0.95,
          ),
        ),
        ms(pct(waited, 0.5)),
        [...new Set(samples.map((s) => s.signal ?? '?'))].join(', '),
        staleCell(samples),
        String(samples.filter((s) => s.settled === false).length),
      ])
    }
    row('cold', KIND_LABEL.introduce, cold)
    for (const kind of KINDS)
      row(
        'warm',
        KIND_LABEL[kind],
        warm.filter((s) => s.kind === kind),
      )
    row('warm', 'all warm edits', warm)
    rows.push([
      server,
      'warm',
      'same edits, diagnostics: false (apply only)',
      String(results.applyOnly.length),
      ms(pct(results.applyOnly, 0.5)),
      ms(pct(results.applyOnly, 0.95)),
      '-',
      '-',
      '-',
      '-',
    ])
  }
  console.log(
    markdownTable(
      [
        'server',
        'state',
        'edit',
        'n',
        'p50 ms',
        'p95 ms',
        'settle wait p50 ms',
        'signal',
        'stale',
        'unsettled',
      ],
      rows,
    ),
  )
  console.log(`\n${loadLine()}`)
}

function printComparison(all: Map<LspLanguage, ServerResults>): void {
  console.log('\n### the same edits, the OpenCode way (same servers, same project)\n')
  console.log(
    'patchloom rows time engine.apply (baseline, write, settle); the others time from the push ' +
      '(didChange + didSave) to the diagnostics taken. Cold rows include server start.\n',
  )
  const rows: string[][] = []
  for (const { language, adapter } of SERVERS) {
    const results = all.get(language)
    if (results === undefined) continue
    for (const method of METHODS) {
      const warm = results.warm.get(method) ?? []
      const cold = results.cold.get(method) ?? []
      const byKind = KINDS.map((k) => warm.filter((s) => s.kind === k && s.stale).length).join(' ')
      const ofKind = KINDS.map((k) => warm.filter((s) => s.kind === k).length).join(' ')
      rows.push([
        adapter.name,
        method,
        ms(
          pct(
            warm.map((s) => s.ms),
            0.5,
          ),
        ),
        ms(
          pct(
            warm.map((s) => s.ms),
            0.95,
          ),
        ),
        staleCell(warm),
        `${byKind} of ${ofKind}`,
        ms(
          pct(
            cold.map((s) => s.ms),
            0.5,
          ),
        ),
        staleCell(cold),
      ])
    }
  }
  console.log(
    markdownTable(
      [
        'server',
        'method',
        'warm p50 ms',
        'warm p95 ms',
        'warm stale',
        'stale by edit a b c d',
        'cold p50 ms',
        'cold stale',
      ],
      rows,
    ),
  )
  console.log(`\n${loadLine()}`)
  if (staleNotes.length > 0) {
    console.log('\nStale samples (what the agent would have been shown):\n')
    const counts = new Map<string, number>()
    for (const note of staleNotes) counts.set(note, (counts.get(note) ?? 0) + 1)
    for (const [note, count] of counts) console.log(`- ${count} x ${note}`)
  }
}

function printMemory(rows: readonly MemoryRow[]): void {
  console.log(
    "\n### memory: RSS of the pool's servers (status().servers[].rssBytes, whole process group)\n",
  )
  console.log(
    markdownTable(
      ['pool', 'live servers', 'RSS sum MiB', 'per server p50 MiB', 'max MiB', 'touch p50 ms'],
      rows.map((r) => [
        r.label,
        String(r.live),
        mib(r.rss.reduce((a, b) => a + b, 0)),
        mib(pct(r.rss, 0.5)),
        mib(Math.max(0, ...r.rss)),
        r.touchMs === undefined ? '-' : ms(pct(r.touchMs, 0.5)),
      ]),
    ),
  )
  console.log(`\n${loadLine()}`)
}

// ---- main -------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const startedAt = performance.now()
  console.log('## lsp.bench\n')
  console.log(machineLine())
  console.log(
    `\n${MODULES}-module projects (seed ${SEED}); warm: ${WARM_AB} x (a), (b) and ${WARM_CD} x (c), (d) ` +
      `through the engine; cold: ${COLD} fresh engines; deadline ${DEADLINE_MS} ms.`,
  )
  const all = new Map<LspLanguage, ServerResults>()
  try {
    for (const { language, adapter } of SERVERS) {
      const results: ServerResults = { warm: new Map(), cold: new Map(), applyOnly: [] }
      all.set(language, results)
      await patchloomWarm(language, adapter, results)
      await patchloomCold(language, adapter, results)
      for (const waiting of ['debounce', 'fixed'] as const) {
        await openCodeWarm(language, adapter, waiting, results)
        await openCodeCold(language, adapter, waiting, results)
      }
    }
    printLatency(all)
    printComparison(all)
    printMemory(await memory())
  } finally {
    const left = await leftoverProcesses()
    await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })))
    console.log(
      `\nserver processes left after closing every pool and session: ${left.length}` +
        (left.length === 0 ? '' : ` (${left.join(', ')})`),
    )
    console.log(`bench wall time: ${((performance.now() - startedAt) / 1000).toFixed(0)} s`)
  }
}

await main()
