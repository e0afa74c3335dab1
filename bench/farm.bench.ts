// Many agents editing one tree at once through `patchloom serve --http`: N concurrent
// clients, each doing M edits on a seeded mix of its own private file and a few shared files.
// Every file has one section per agent that edits it (`section agent-0007`, then a filler line):
// an edit appends a unique token line (`agent-0007 edit-00012`) to the agent's own section
// (old_string: the section's last line, new_string: that line plus the token), so edits of two
// agents on one shared file never touch the same or adjacent lines and a rebase can land them.
// Two client styles (--client), on the same load:
// - optimistic: read_file, then edit_file with expected_hash from that read; a stale hash
//   (FILE_HASH_MISMATCH) is retried at once from the file the refusal returns (no second read;
//   it reads again only when the refusal has no content);
// - rebase: as agents with read-before-write state edit: read_file, then edit_file without
//   expected_hash, the server rebasing the edit over the others' changes made since the read; a
//   refused rebase (an overlap, 0 on this load) is counted and retried from the refusal's file.
// SERVER_BUSY or HTTP 429 backs off and retries. At the end every file is read from disk and the
// tokens counted: an acknowledged edit whose token is not in its agent's section exactly once is
// a lost update (must be 0 for patchloom); a token in another's section or out of its agent's
// order is misplaced (must be 0 too).
// Side by side, in the same run and on the same load, the reference server
// @modelcontextprotocol/server-filesystem, deployed as it is meant to be: one stdio process per
// client, spoken to with raw newline-delimited JSON-RPC (initialize, then read_text_file and
// edit_file with edits [{oldText, newText}]); it has no expected_hash, so its lost updates are
// counted the same way. It is run at N <= 64 only (--ref-n): 256 node processes on 2 cores
// measure process scheduling, not the server.
// Per row: edits/s over the timed phase (and kept/s: those whose token is in the file at the end;
// the ratio to the reference is taken on these), p50/p99 of one acknowledged edit (first read to the
// edit's answer, retries included), retries per edit, refused rebases, edits given up, lost
// updates, the CPU of the load generator (this process) and of the server process(es), each as a
// share of wall time, so a client-bound row can be seen as such, and the server's CPU ms per
// acknowledged edit (its read+edit pair, retries included). Each row gets a fresh server and
// tree, and untimed warm-up edits (about 100 in all, at least 2 per client) on separate files
// first.
// Run: npm run build && node dist/bench/farm.bench.js   (or npm run bench:farm -- FLAGS)
//   --n 1,16,64,256        client counts for patchloom
//   --ref-n 1,16,64        client counts for the reference server (--no-ref: none)
//   --m 50                 edits per client
//   --mix private,mixed    private: every edit on the client's own file; mixed: a share of the
//                          edits (--shared-share 0.25) on --shared-files 4 shared files
//   --client optimistic,rebase   patchloom's client styles, one set of rows each
//   --durability full,fast patchloom's --durability, one set of rows each
//   --runs 1               repeat every row; tables show medians (lost updates: the sum)
//   --warmup 100           untimed warm-up edits per row, spread over the clients (>= 2 each)
//   --seed 11  --json FILE (the report as JSON)  --quick (N=4, M=5, one run, CI)
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { Agent } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { prng } from './generate.js'
import { parseReply, postRpc, PROTOCOL_VERSION, type RpcReply } from './mcp-http.js'
import { loadLine, machineLine, markdownTable, median, ms, ratio } from './report.js'

const CLI = fileURLToPath(new URL('../../bin/patchloom.js', import.meta.url))
const REF_BIN = fileURLToPath(
  new URL(
    '../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
    import.meta.url,
  ),
)
/** Attempts (read + edit) per edit before it is counted as failed. */
const MAX_ATTEMPTS = 500
/** Untimed warm-up edits per client before a row: at least this many, --warmup in all. */
const WARMUP_MIN = 2
/** Clock ticks per second in /proc/PID/stat (USER_HZ, 100 on Linux). */
const CLK_TCK = 100

type Durability = 'full' | 'fast'
type Mix = 'private' | 'mixed'
type ServerKind = 'patchloom' | 'server-filesystem'
/** How a patchloom client edits (the opening comment); the reference server has one way. */
type ClientMode = 'optimistic' | 'rebase'

interface Flags {
  readonly ns: readonly number[]
  readonly refNs: readonly number[]
  readonly m: number
  readonly mixes: readonly Mix[]
  readonly sharedShare: number
  readonly sharedFiles: number
  readonly durabilities: readonly Durability[]
  readonly clients: readonly ClientMode[]
  readonly runs: number
  readonly seed: number
  readonly warmup: number
  readonly json: string | undefined
}

function parseFlags(argv: readonly string[]): Flags {
  const list = (v: string) => v.split(',').filter((s) => s !== '')
  const numbers = (v: string) =>
    list(v).map((s) => {
      const n = Number(s)
      if (!Number.isInteger(n) || n < 1) throw new Error(`not a positive integer: ${s}`)
      return n
    })
  const flags = {
    ns: [1, 16, 64, 256] as readonly number[],
    refNs: [1, 16, 64] as readonly number[],
    m: 50,
    mixes: ['private', 'mixed'] as readonly Mix[],
    sharedShare: 0.25,
    sharedFiles: 4,
    durabilities: ['full', 'fast'] as readonly Durability[],
    clients: ['optimistic', 'rebase'] as readonly ClientMode[],
    runs: 1,
    seed: 11,
    warmup: 100,
    json: undefined as string | undefined,
  }
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] as string
    const value = () => {
      const v = argv[++i]
      if (v === undefined) throw new Error(`${flag} needs a value`)
      return v
    }
    if (flag === '--n') flags.ns = numbers(value())
    else if (flag === '--ref-n') flags.refNs = numbers(value())
    else if (flag === '--no-ref') flags.refNs = []
    else if (flag === '--m') flags.m = numbers(value())[0] as number
    else if (flag === '--mix') {
      const mixes = list(value())
      for (const mix of mixes)
        if (mix !== 'private' && mix !== 'mixed') throw new Error(`unknown mix ${mix}`)
      flags.mixes = mixes as Mix[]
    } else if (flag === '--shared-share') {
      flags.sharedShare = Number(value())
      if (!(flags.sharedShare >= 0 && flags.sharedShare <= 1))
        throw new Error('--shared-share takes a number from 0 to 1')
    } else if (flag === '--shared-files') flags.sharedFiles = numbers(value())[0] as number
    else if (flag === '--durability') {
      const ds = list(value())
      for (const d of ds)
        if (d !== 'full' && d !== 'fast') throw new Error(`unknown durability ${d}`)
      flags.durabilities = ds as Durability[]
    } else if (flag === '--client') {
      const cs = list(value())
      for (const c of cs)
        if (c !== 'optimistic' && c !== 'rebase') throw new Error(`unknown client ${c}`)
      if (cs.length === 0) throw new Error('--client needs optimistic, rebase or both')
      flags.clients = cs as ClientMode[]
    } else if (flag === '--runs') flags.runs = numbers(value())[0] as number
    else if (flag === '--seed') flags.seed = Number(value())
    else if (flag === '--warmup') flags.warmup = Number(value())
    else if (flag === '--json') flags.json = path.resolve(value())
    else if (flag === '--quick') {
      flags.ns = [4]
      flags.refNs = [4]
      flags.m = 5
      flags.runs = 1
      flags.warmup = 8
    } else throw new Error(`unknown flag ${flag}`)
  }
  return flags
}

// ---------------------------------------------------------------------------------------------
// The tree: one private file per client, the shared files, one warm-up file per client. Each
// file has a section per agent that edits it, a filler line after each section.

interface Tree {
  readonly root: string
  readonly privateOf: (k: number) => string
  readonly shared: readonly string[]
  readonly warmOf: (k: number) => string
  /** Every file the timed phase edits, with the agents that have a section in it. */
  readonly timed: readonly { readonly rel: string; readonly agents: readonly number[] }[]
}

const pad = (n: number, width: number) => String(n).padStart(width, '0')
const agentName = (k: number) => `agent-${pad(k, 4)}`
/** Fixed width, so no token is a prefix of another and a last line matches exactly once. */
const tokenOf = (k: number, e: number) => `${agentName(k)} edit-${pad(e, 5)}`
const SECTION = 'section '
const FILLER = 'filler'
const headingOf = (k: number) => `${SECTION}${agentName(k)}`

function makeTree(n: number, sharedFiles: number): Tree {
  const root = mkdtempSync(path.join(tmpdir(), 'farm-'))
  for (const dir of ['private', 'shared', 'warm']) mkdirSync(path.join(root, dir))
  const everyone = Array.from({ length: n }, (_, k) => k)
  const privateOf = (k: number) => `private/${agentName(k)}.txt`
  const shared = Array.from({ length: sharedFiles }, (_, i) => `shared/s${i}.txt`)
  const warmOf = (k: number) => `warm/${agentName(k)}.txt`
  const timed = [
    ...everyone.map((k) => ({ rel: privateOf(k), agents: [k] })),
    ...shared.map((rel) => ({ rel, agents: everyone })),
  ]
  const files = [...timed, ...everyone.map((k) => ({ rel: warmOf(k), agents: [k] }))]
  for (const { rel, agents } of files) {
    const body = agents.map((k) => `${headingOf(k)}\n${FILLER}\n`).join('')
    writeFileSync(path.join(root, rel), `farm file ${rel}\n${body}`)
  }
  return { root, privateOf, shared, warmOf, timed }
}

/** The last line of agent k's section: the line its next token goes after. */
function lastLineOf(lines: readonly string[], k: number): string | undefined {
  const at = lines.indexOf(headingOf(k))
  if (at === -1) return undefined
  let end = at
  while (end + 1 < lines.length && lines[end + 1] !== FILLER) end++
  return lines[end]
}

// ---------------------------------------------------------------------------------------------
// One client's view of a server: read a file (its lines and, for patchloom, its hash) and append
// a line after a given last line. Both servers answer with the same outcome kinds.

/** A file as a client saw it: its lines (endings cut) and, from patchloom, its hash. */
interface FileView {
  readonly lines: readonly string[]
  readonly hash: string | undefined
}

type Outcome =
  /** `rebased`: the server landed the edit over changes made since the client's read. */
  | { readonly kind: 'ok'; readonly rebased?: boolean }
  /** A stale hash or a refused rebase; `current`: the file as the refusal returned it. */
  | { readonly kind: 'stale'; readonly current?: FileView }
  | { readonly kind: 'busy' }
  | { readonly kind: 'error'; readonly code: string }

interface Client {
  read(rel: string): Promise<FileView | Outcome>
  append(rel: string, lastLine: string, line: string, hash: string | undefined): Promise<Outcome>
  close(): void
}

/** read_file's numbered listing (`<n>\t<text>` lines) as the lines' text. */
function listedLines(content: string): string[] {
  if (content === '') return []
  return content.split('\n').map((l) => l.slice(l.indexOf('\t') + 1))
}

/** patchloom over keep-alive HTTP: one connection per client, no initialize (stateless 2025). */
class HttpClient implements Client {
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 1 })
  readonly #url: URL
  readonly #name: string
  #id = 0

  constructor(url: URL, name: string) {
    this.#url = url
    this.#name = name
  }

  async read(rel: string): Promise<FileView | Outcome> {
    // The default page is 2,000 lines: a longer file is read again whole.
    for (let limit: number | undefined; ;) {
      const reply = await this.#call('read_file', { path: rel, ...(limit ? { limit } : {}) })
      if (!('structured' in reply)) return reply
      const listed = reply.structured
      if (listed['more'] === true) {
        limit = 2 * Number(listed['total_lines'])
        continue
      }
      return { lines: listedLines(String(listed['content'])), hash: String(listed['content_hash']) }
    }
  }

  async append(
    rel: string,
    lastLine: string,
    line: string,
    hash: string | undefined,
  ): Promise<Outcome> {
    const reply = await this.#call('edit_file', {
      path: rel,
      old_string: lastLine,
      new_string: `${lastLine}\n${line}`,
      ...(hash === undefined ? {} : { expected_hash: hash }),
    })
    if (!('structured' in reply)) return reply
    const files = reply.structured['files'] as { rebased_from?: string }[] | undefined
    return { kind: 'ok', rebased: files?.[0]?.rebased_from !== undefined }
  }

  close(): void {
    this.#agent.destroy()
  }

  async #call(
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ structured: Record<string, unknown> } | Outcome> {
    const id = ++this.#id
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args },
    })
    const { status, text } = await postRpc(this.#url, this.#agent, this.#name, body)
    if (status === 429) return { kind: 'busy' }
    if (status !== 200) return { kind: 'error', code: `HTTP_${status}` }
    const reply = parseReply(text, 'farm')
    return outcomeOf(reply)
  }
}

function outcomeOf(reply: RpcReply): { structured: Record<string, unknown> } | Outcome {
  if (reply.error !== undefined) return { kind: 'error', code: `RPC_${reply.error.code}` }
  const result = reply.result
  if (result === undefined) return { kind: 'error', code: 'NO_RESULT' }
  if (result.isError === true) {
    const error = result.structuredContent?.['error'] as
      | { code?: string; current?: { content: string; content_hash: string; more: boolean } }
      | undefined
    const code = error?.code ?? 'TOOL_ERROR'
    if (code === 'FILE_HASH_MISMATCH') {
      const current = error?.current
      return current === undefined || current.more
        ? { kind: 'stale' }
        : {
            kind: 'stale',
            current: { lines: listedLines(current.content), hash: current.content_hash },
          }
    }
    if (code === 'SERVER_BUSY') return { kind: 'busy' }
    return { kind: 'error', code }
  }
  return { structured: result.structuredContent ?? {} }
}

/** The reference server: its own stdio process, newline-delimited JSON-RPC after initialize. */
class StdioClient implements Client {
  readonly child: ChildProcess
  readonly #root: string
  readonly #pending = new Map<number, (reply: RpcReply) => void>()
  #id = 0

  private constructor(child: ChildProcess, root: string) {
    this.child = child
    this.#root = root
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })
    lines.on('line', (line) => {
      if (!line.startsWith('{')) return
      const message = JSON.parse(line) as RpcReply & { id?: number }
      if (typeof message.id !== 'number') return
      const resolve = this.#pending.get(message.id)
      this.#pending.delete(message.id)
      resolve?.(message)
    })
  }

  static async start(root: string): Promise<StdioClient> {
    const child = spawn(process.execPath, [REF_BIN, root], { stdio: ['pipe', 'pipe', 'ignore'] })
    const client = new StdioClient(child, root)
    const init = await client.#send('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'farm.bench', version: '0' },
    })
    if (init.error !== undefined) throw new Error(`server-filesystem: ${init.error.message}`)
    child.stdin?.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
    )
    return client
  }

  async read(rel: string): Promise<FileView | Outcome> {
    const reply = await this.#tool('read_text_file', { path: path.join(this.#root, rel) })
    if (!('structured' in reply)) return reply
    const content = String(reply.structured['content']).replace(/\n$/, '')
    return { lines: content === '' ? [] : content.split('\n'), hash: undefined }
  }

  async append(rel: string, lastLine: string, line: string): Promise<Outcome> {
    const reply = await this.#tool('edit_file', {
      path: path.join(this.#root, rel),
      edits: [{ oldText: lastLine, newText: `${lastLine}\n${line}` }],
    })
    if ('structured' in reply) return { kind: 'ok' }
    // No expected_hash: the only sign of a concurrent change is the old text no longer found.
    return reply.kind === 'error' && reply.code === 'TOOL_ERROR' ? { kind: 'stale' } : reply
  }

  close(): void {
    this.child.stdin?.end()
    this.child.kill()
  }

  async #tool(
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ structured: Record<string, unknown> } | Outcome> {
    return outcomeOf(await this.#send('tools/call', { name, arguments: args }))
  }

  #send(method: string, params: unknown): Promise<RpcReply> {
    const id = ++this.#id
    return new Promise((resolve, reject) => {
      this.#pending.set(id, resolve)
      this.child.stdin?.write(
        `${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`,
        (e) => {
          if (e) reject(e)
        },
      )
    })
  }
}

// ---------------------------------------------------------------------------------------------
// The load: each client's edits in sequence, all clients at once.

interface ClientStats {
  readonly latenciesMs: number[]
  readonly acked: string[]
  /** Refusals of a stale expected_hash. */
  stale: number
  /** Refused rebases (no expected_hash: the server could not merge the edit). */
  rebaseRefused: number
  /** Retries made from the file a refusal returned, without reading it again. */
  fromRefusal: number
  /** Edits the server rebased over changes made since the client's read. */
  rebased: number
  busy: number
  failed: number
  readonly errors: Map<string, number>
}

const sleep = (msToWait: number) => new Promise((r) => setTimeout(r, msToWait))

/**
 * Client k's edits in sequence, in its style: `optimistic` sends the hash it read, `rebase` none,
 * and so does the reference server's client, which has no hash to send. A refusal that returns
 * the file is retried from it.
 */
async function runClient(
  client: Client,
  k: number,
  mode: ClientMode | 'reference',
  files: readonly string[],
  tokens: readonly string[],
  stats: ClientStats,
): Promise<void> {
  const random = prng(0x5eed + k)
  for (let e = 0; e < files.length; e++) {
    const rel = files[e] as string
    const token = tokens[e] as string
    const start = performance.now()
    let done = false
    let view: FileView | undefined
    for (let attempt = 0, busyRun = 0; attempt < MAX_ATTEMPTS && !done; attempt++) {
      let outcome: Outcome
      const read = view ?? (await client.read(rel))
      view = undefined
      if ('kind' in read) outcome = read
      else {
        const last = lastLineOf(read.lines, k)
        outcome =
          last === undefined
            ? { kind: 'error', code: 'NO_SECTION' }
            : await client.append(rel, last, token, mode === 'optimistic' ? read.hash : undefined)
      }
      switch (outcome.kind) {
        case 'ok':
          stats.latenciesMs.push(performance.now() - start)
          stats.acked.push(token)
          if (outcome.rebased === true) stats.rebased++
          done = true
          break
        case 'stale':
          if (mode === 'rebase') stats.rebaseRefused++
          else stats.stale++
          if (outcome.current !== undefined) {
            view = outcome.current
            stats.fromRefusal++
          }
          break
        case 'busy':
          stats.busy++
          busyRun++
          await sleep(Math.min(50, 2 ** busyRun) * (0.5 + random()))
          break
        case 'error':
          stats.errors.set(outcome.code, (stats.errors.get(outcome.code) ?? 0) + 1)
          attempt = MAX_ATTEMPTS
          break
      }
    }
    if (!done) stats.failed++
  }
}

/** Which file each of client k's edits goes to (seeded: the same plan for both servers). */
function planOf(k: number, tree: Tree, flags: Flags, mix: Mix): string[] {
  const random = prng(flags.seed * 1000 + k)
  return Array.from({ length: flags.m }, () =>
    mix === 'mixed' && random() < flags.sharedShare
      ? (tree.shared[Math.floor(random() * tree.shared.length)] as string)
      : tree.privateOf(k),
  )
}

/** CPU seconds (user + system) of a process from /proc, or NaN off Linux. */
function cpuSecondsOf(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK
  } catch {
    return Number.NaN
  }
}

export interface FarmRow {
  readonly server: ServerKind
  readonly durability: Durability | null
  /** patchloom's client style; null for the reference server. */
  readonly client: ClientMode | null
  readonly mix: Mix
  readonly n: number
  readonly m: number
  readonly edits: number
  readonly failed: number
  readonly wallMs: number
  readonly editsPerSec: number
  /** Acknowledged edits whose token is in the file at the end, per second. */
  readonly keptPerSec: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly retriesPerEdit: number
  readonly staleRetries: number
  /** Rebases the server refused (rebase clients): edits it could not merge. */
  readonly rebaseRefused: number
  /** Retries made from the file a refusal returned, without a second read. */
  readonly retriesFromRefusal: number
  /** Acknowledged edits the server rebased over others' changes made since the read. */
  readonly rebasedEdits: number
  readonly busyRetries: number
  readonly lost: number
  /** Tokens in another agent's section, or out of their agent's order. */
  readonly misplaced: number
  readonly landedUnacknowledged: number
  readonly clientCpuShare: number
  readonly serverCpuShare: number
  /** The server's CPU ms per acknowledged edit (its read+edit pair, retries included). */
  readonly serverCpuMsPerEdit: number
  readonly errors: Readonly<Record<string, number>>
  readonly serverLog: readonly string[]
}

function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number
}

interface Target {
  readonly clients: Client[]
  readonly cpuSeconds: () => number
  readonly log: () => string[]
  stop(): Promise<void>
}

async function startPatchloom(tree: Tree, n: number, durability: Durability): Promise<Target> {
  const child = spawn(
    process.execPath,
    [CLI, 'serve', '--http', '127.0.0.1:0', '--root', tree.root, '--durability', durability],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  const log: string[] = []
  createInterface({ input: child.stderr }).on('line', (line) => {
    if (/serving MCP|draining requests|stopped|responseMode/.test(line)) return
    // JSON log lines: the calls and the server's start are traffic; warnings and errors are kept.
    if (line.startsWith('{') && /"level":"(info|debug)"/.test(line)) return
    log.push(line)
  })
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`patchloom serve exited ${String(code)}`)))
  })
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  return {
    clients: Array.from({ length: n }, (_, k) => new HttpClient(new URL(url), agentName(k))),
    cpuSeconds: () => cpuSecondsOf(child.pid),
    log: () => log,
    stop: async () => {
      child.kill('SIGTERM')
      await exited
    },
  }
}

async function startReference(tree: Tree, n: number): Promise<Target> {
  const clients: StdioClient[] = []
  // Started a few at a time: 64 node processes starting at once on 2 cores take seconds.
  for (let k = 0; k < n; k += 8)
    clients.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(8, n - k) }, () => StdioClient.start(tree.root)),
      )),
    )
  return {
    clients,
    cpuSeconds: () => clients.reduce((sum, c) => sum + cpuSecondsOf(c.child.pid), 0),
    log: () => [],
    stop: async () => {
      await Promise.all(
        clients.map(
          (c) =>
            new Promise<void>((r) => {
              if (c.child.exitCode !== null) return r()
              c.child.once('exit', () => r())
              c.close()
            }),
        ),
      )
    },
  }
}

async function runRow(
  server: ServerKind,
  durability: Durability | null,
  client: ClientMode | null,
  mix: Mix,
  n: number,
  flags: Flags,
): Promise<FarmRow> {
  const tree = makeTree(n, flags.sharedFiles)
  const target =
    server === 'patchloom'
      ? await startPatchloom(tree, n, durability as Durability)
      : await startReference(tree, n)
  const mode = client ?? 'reference'
  try {
    const warm = Math.max(WARMUP_MIN, Math.ceil(flags.warmup / n))
    const warmStats = target.clients.map(() => newStats())
    await Promise.all(
      target.clients.map((c, k) =>
        runClient(
          c,
          k,
          mode,
          Array.from({ length: warm }, () => tree.warmOf(k)),
          Array.from({ length: warm }, (_, e) => `warm ${tokenOf(k, e)}`),
          warmStats[k] as ClientStats,
        ),
      ),
    )
    const stats = target.clients.map(() => newStats())
    const plans = target.clients.map((_, k) => planOf(k, tree, flags, mix))
    const serverCpu0 = target.cpuSeconds()
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    await Promise.all(
      target.clients.map((c, k) =>
        runClient(
          c,
          k,
          mode,
          plans[k] as string[],
          Array.from({ length: flags.m }, (_, e) => tokenOf(k, e)),
          stats[k] as ClientStats,
        ),
      ),
    )
    const wallMs = performance.now() - t0
    const cpu = process.cpuUsage(cpu0)
    const serverCpu = target.cpuSeconds() - serverCpu0
    const acked = new Set(stats.flatMap((s) => s.acked))
    const { lost, misplaced, landedUnacknowledged } = countTokens(tree, acked)
    const latencies = stats.flatMap((s) => s.latenciesMs).sort((a, b) => a - b)
    const staleRetries = sum(stats.map((s) => s.stale))
    const rebaseRefused = sum(stats.map((s) => s.rebaseRefused))
    const busyRetries = sum(stats.map((s) => s.busy))
    const errors: Record<string, number> = {}
    for (const s of [...warmStats, ...stats])
      for (const [code, count] of s.errors) errors[code] = (errors[code] ?? 0) + count
    return {
      server,
      durability,
      client,
      mix,
      n,
      m: flags.m,
      edits: acked.size,
      failed: sum(stats.map((s) => s.failed)),
      wallMs,
      editsPerSec: acked.size / (wallMs / 1000),
      keptPerSec: (acked.size - lost) / (wallMs / 1000),
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      retriesPerEdit:
        acked.size === 0 ? Number.NaN : (staleRetries + rebaseRefused + busyRetries) / acked.size,
      staleRetries,
      rebaseRefused,
      retriesFromRefusal: sum(stats.map((s) => s.fromRefusal)),
      rebasedEdits: sum(stats.map((s) => s.rebased)),
      busyRetries,
      lost,
      misplaced,
      landedUnacknowledged,
      clientCpuShare: (cpu.user + cpu.system) / 1000 / wallMs,
      serverCpuShare: (serverCpu * 1000) / wallMs,
      serverCpuMsPerEdit: acked.size === 0 ? Number.NaN : (serverCpu * 1000) / acked.size,
      errors,
      serverLog: target.log().slice(0, 20),
    }
  } finally {
    for (const c of target.clients) c.close()
    await target.stop()
    rmSync(tree.root, { recursive: true, force: true })
  }
}

/**
 * The tokens on disk against the acknowledged ones: each must be in its agent's section exactly
 * once (else lost); a token in another agent's section, or after a later one of its agent in
 * its section, is misplaced; a token on disk that no client was told landed is unacknowledged.
 */
function countTokens(
  tree: Tree,
  acked: ReadonlySet<string>,
): { lost: number; misplaced: number; landedUnacknowledged: number } {
  const inOwnSection = new Map<string, number>()
  const seen = new Set<string>()
  let misplaced = 0
  for (const { rel } of tree.timed) {
    let owner: string | undefined
    let previous = ''
    for (const line of readFileSync(path.join(tree.root, rel), 'utf8').split('\n')) {
      if (line.startsWith(SECTION)) {
        owner = line.slice(SECTION.length)
        previous = ''
      } else if (line === FILLER) owner = undefined
      else if (line.startsWith('agent-')) {
        seen.add(line)
        // Fixed-width tokens: in one agent's order exactly when in string order.
        if (owner === undefined || !line.startsWith(`${owner} `) || line <= previous) misplaced++
        else {
          inOwnSection.set(line, (inOwnSection.get(line) ?? 0) + 1)
          previous = line
        }
      }
    }
  }
  let lost = 0
  for (const token of acked) if (inOwnSection.get(token) !== 1) lost++
  let landedUnacknowledged = 0
  for (const token of seen) if (!acked.has(token)) landedUnacknowledged++
  return { lost, misplaced, landedUnacknowledged }
}

function newStats(): ClientStats {
  return {
    latenciesMs: [],
    acked: [],
    stale: 0,
    rebaseRefused: 0,
    fromRefusal: 0,
    rebased: 0,
    busy: 0,
    failed: 0,
    errors: new Map(),
  }
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0)

/** Runs of one row folded into one: medians of the figures, sums of the counts. */
function foldRuns(runs: readonly FarmRow[]): FarmRow & { readonly runs: number } {
  const first = runs[0] as FarmRow
  const med = (pick: (r: FarmRow) => number) => median(runs.map(pick))
  const errors: Record<string, number> = {}
  for (const r of runs)
    for (const [code, count] of Object.entries(r.errors)) errors[code] = (errors[code] ?? 0) + count
  return {
    ...first,
    runs: runs.length,
    edits: med((r) => r.edits),
    failed: sum(runs.map((r) => r.failed)),
    wallMs: med((r) => r.wallMs),
    editsPerSec: med((r) => r.editsPerSec),
    keptPerSec: med((r) => r.keptPerSec),
    p50Ms: med((r) => r.p50Ms),
    p99Ms: med((r) => r.p99Ms),
    retriesPerEdit: med((r) => r.retriesPerEdit),
    staleRetries: med((r) => r.staleRetries),
    rebaseRefused: sum(runs.map((r) => r.rebaseRefused)),
    retriesFromRefusal: med((r) => r.retriesFromRefusal),
    rebasedEdits: med((r) => r.rebasedEdits),
    busyRetries: med((r) => r.busyRetries),
    lost: sum(runs.map((r) => r.lost)),
    misplaced: sum(runs.map((r) => r.misplaced)),
    landedUnacknowledged: sum(runs.map((r) => r.landedUnacknowledged)),
    clientCpuShare: med((r) => r.clientCpuShare),
    serverCpuShare: med((r) => r.serverCpuShare),
    serverCpuMsPerEdit: med((r) => r.serverCpuMsPerEdit),
    errors,
    serverLog: runs.flatMap((r) => r.serverLog).slice(0, 20),
  }
}

// ---------------------------------------------------------------------------------------------

const pct = (share: number) => (Number.isNaN(share) ? '-' : `${(share * 100).toFixed(0)}%`)
const label = (r: FarmRow) =>
  r.server === 'patchloom'
    ? `patchloom --durability ${String(r.durability)}`
    : 'server-filesystem (stdio, 1 process per client)'

function table(rows: readonly FarmRow[], reference: readonly FarmRow[]): string {
  return markdownTable(
    [
      'server',
      'client',
      'N',
      'edits',
      'edits/s',
      'kept/s',
      'x server-filesystem (kept)',
      'p50 ms',
      'p99 ms',
      'retries/edit',
      'rebases refused',
      'given up',
      'lost',
      'client CPU',
      'server CPU',
      'server CPU ms/pair',
    ],
    rows.map((r) => {
      const ref = reference.find((x) => x.n === r.n && x.mix === r.mix)
      return [
        label(r),
        r.client ?? '-',
        String(r.n),
        String(r.edits),
        r.editsPerSec.toFixed(0),
        r.keptPerSec.toFixed(0),
        r.server === 'patchloom' && ref !== undefined ? ratio(r.keptPerSec, ref.keptPerSec) : '-',
        ms(r.p50Ms),
        ms(r.p99Ms),
        Number.isNaN(r.retriesPerEdit) ? '-' : r.retriesPerEdit.toFixed(2),
        r.client === 'rebase' ? String(r.rebaseRefused) : '-',
        String(r.failed),
        String(r.lost),
        pct(r.clientCpuShare),
        pct(r.serverCpuShare),
        Number.isNaN(r.serverCpuMsPerEdit) ? '-' : r.serverCpuMsPerEdit.toFixed(2),
      ]
    }),
  )
}

export interface FarmTarget {
  readonly target: string
  readonly measured: string
  readonly met: boolean | null
}

/**
 * The farm's targets (no lost update, throughput, latency, no starving agent) against the rows
 * measured (null: the row was not run).
 */
function targetsOf(rows: readonly FarmRow[]): FarmTarget[] {
  const out: FarmTarget[] = []
  const mine = rows.filter((r) => r.server === 'patchloom')
  const refs = rows.filter((r) => r.server === 'server-filesystem')
  const lostAll = sum(mine.map((r) => r.lost + r.misplaced))
  out.push({
    target: '0 lost updates at every N and client mode (patchloom)',
    measured: `${lostAll} lost or misplaced in ${sum(mine.map((r) => r.edits))} acknowledged edits`,
    met: mine.length === 0 ? null : lostAll === 0,
  })
  const find = (d: Durability, c: ClientMode, n: number, mix: Mix) =>
    mine.find((r) => r.durability === d && r.client === c && r.n === n && r.mix === mix)
  const modes = ['optimistic', 'rebase'] as const
  for (const d of ['full', 'fast'] as const) {
    const [rate, p99] = d === 'fast' ? [1000, 150] : [600, 200]
    for (const c of modes) {
      const at64 = find(d, c, 64, 'private')
      out.push({
        target: `64 agents, private files, --durability ${d}, ${c}: >= ${rate} edits/s with p99 < ${p99} ms`,
        measured:
          at64 === undefined
            ? 'not run'
            : `${at64.editsPerSec.toFixed(0)} edits/s, p99 ${ms(at64.p99Ms)} ms`,
        met: at64 === undefined ? null : at64.editsPerSec >= rate && at64.p99Ms < p99,
      })
    }
    const ref64 = refs.find((x) => x.n === 64 && x.mix === 'mixed')
    const rebase64 = find(d, 'rebase', 64, 'mixed')
    out.push({
      target: `64 agents, mixed, --durability ${d}, rebase: kept edits/s >= 2x server-filesystem's, p99 < 250 ms`,
      measured:
        rebase64 === undefined || ref64 === undefined
          ? 'not run'
          : `${ratio(rebase64.keptPerSec, ref64.keptPerSec)} (${rebase64.keptPerSec.toFixed(0)} kept/s), p99 ${ms(rebase64.p99Ms)} ms, ${rebase64.rebaseRefused} rebases refused`,
      met:
        rebase64 === undefined || ref64 === undefined
          ? null
          : rebase64.keptPerSec >= 2 * ref64.keptPerSec && rebase64.p99Ms < 250,
    })
    const optimistic64 = find(d, 'optimistic', 64, 'mixed')
    out.push({
      target: `64 agents, mixed, --durability ${d}, optimistic: no edit given up, p99 < 1 s`,
      measured:
        optimistic64 === undefined
          ? 'not run'
          : `${optimistic64.failed} given up, p99 ${ms(optimistic64.p99Ms)} ms`,
      met:
        optimistic64 === undefined ? null : optimistic64.failed === 0 && optimistic64.p99Ms < 1000,
    })
    const at256 = mine.filter((r) => r.durability === d && r.n === 256)
    out.push({
      target: `256 agents, --durability ${d}: no client gives up (p99 reported)`,
      measured:
        at256.length === 0
          ? 'not run'
          : at256
              .map(
                (r) => `${r.mix} ${String(r.client)}: ${r.failed} given up, p99 ${ms(r.p99Ms)} ms`,
              )
              .join('; '),
      met: at256.length === 0 ? null : at256.every((r) => r.failed === 0),
    })
    const limit = d === 'fast' ? 2.5 : 3.5
    const ones = modes.flatMap((c) => find(d, c, 1, 'private') ?? [])
    out.push({
      target: `1 agent, --durability ${d}: read+edit p50 < ${limit} ms`,
      measured:
        ones.length === 0
          ? 'not run'
          : ones.map((r) => `${String(r.client)} p50 ${ms(r.p50Ms)} ms`).join('; '),
      met: ones.length === 0 ? null : ones.every((r) => r.p50Ms < limit),
    })
  }
  const cpu = mine.filter((r) => !Number.isNaN(r.serverCpuMsPerEdit))
  out.push({
    target: 'server CPU per read+edit pair, every row (patchloom)',
    measured:
      cpu.length === 0
        ? 'not run'
        : `${Math.min(...cpu.map((r) => r.serverCpuMsPerEdit)).toFixed(2)}-${Math.max(...cpu.map((r) => r.serverCpuMsPerEdit)).toFixed(2)} ms`,
    met: null,
  })
  return out
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2))
  console.log('## farm.bench\n')
  console.log(machineLine())
  console.log(
    `\n${flags.m} edits per client, each one read_file + edit_file; patchloom clients: ${flags.clients.join(', ')} (optimistic: expected_hash, retried from the refusal's file; rebase: no expected_hash, the server rebases); mixes: ${flags.mixes.join(', ')} (mixed: ${flags.sharedShare * 100}% of edits on ${flags.sharedFiles} shared files, a section per agent); seed ${flags.seed}; ${flags.runs} run(s) per row, medians (lost, given up and refused rebases: sums)\n`,
  )
  const rows: FarmRow[] = []
  for (const mix of flags.mixes) {
    type Config = [ServerKind, Durability | null, ClientMode | null, number]
    const configs: Config[] = [
      ...flags.durabilities.flatMap((d) =>
        flags.clients.flatMap((c) => flags.ns.map((n): Config => ['patchloom', d, c, n])),
      ),
      ...flags.refNs.map((n): Config => ['server-filesystem', null, null, n]),
    ]
    const runs = new Map<string, FarmRow[]>()
    // Runs interleave (every config once, then again), so a load spike is spread over the rows.
    for (let run = 0; run < flags.runs; run++)
      for (const [server, durability, client, n] of configs) {
        const key = `${server} ${String(durability)} ${String(client)} ${n}`
        const row = await runRow(server, durability, client, mix, n, flags)
        runs.set(key, [...(runs.get(key) ?? []), row])
      }
    const folded = [...runs.values()].map(foldRuns)
    rows.push(...folded)
    console.log(
      `### ${mix === 'private' ? 'private files: each client edits only its own file' : `mixed: ${flags.sharedShare * 100}% of edits on ${flags.sharedFiles} shared files, the rest on the client's own`}\n`,
    )
    console.log(
      table(
        folded,
        folded.filter((r) => r.server === 'server-filesystem'),
      ),
    )
    for (const r of folded) {
      const which = `${label(r)}${r.client === null ? '' : ` ${r.client}`} N=${r.n}`
      const codes = Object.entries(r.errors)
      if (codes.length > 0)
        console.log(`\n> ${which}: errors ${codes.map(([c, k]) => `${c} x${k}`).join(', ')}`)
      for (const line of r.serverLog.slice(0, 3)) console.log(`> ${which} server: ${line}`)
      if (r.landedUnacknowledged > 0)
        console.log(`\n> ${which}: ${r.landedUnacknowledged} tokens landed unacknowledged`)
      if (r.misplaced > 0) console.log(`\n> ${which}: ${r.misplaced} tokens misplaced`)
    }
    console.log(`\n${loadLine()}\n`)
  }
  const targets = targetsOf(rows)
  console.log('### targets\n')
  console.log(
    markdownTable(
      ['target', 'measured', 'met'],
      targets.map((t) => [t.target, t.measured, t.met === null ? '-' : t.met ? 'yes' : 'no']),
    ),
  )
  const broken = rows.filter(
    (r) =>
      r.server === 'patchloom' && (r.lost > 0 || r.misplaced > 0 || r.landedUnacknowledged > 0),
  )
  for (const r of broken)
    console.log(
      `\n> patchloom lost updates: ${label(r)} ${String(r.client)} ${r.mix} N=${r.n}: ${r.lost} lost, ${r.misplaced} misplaced, ${r.landedUnacknowledged} landed unacknowledged`,
    )
  if (broken.length > 0) process.exitCode = 1
  if (flags.json !== undefined)
    writeFileSync(
      flags.json,
      `${JSON.stringify({ machine: machineLine(), flags, rows, targets }, null, 2)}\n`,
    )
}

await main()
