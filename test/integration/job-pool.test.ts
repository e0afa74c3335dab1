// Real worker threads from the built dist/ (run `npm run build` first; `npm test` does).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/coordinator/engine.js'
import { JobPool } from '../../src/coordinator/job-pool.js'
import { JOB_PROTOCOL } from '../../src/coordinator/jobs.js'
import { EditError } from '../../src/errors.js'
import { exitCodeFor, internalErrorData } from '../../src/cli/render.js'
import { codexPatch, generateWorkspace, writeWorkspace } from '../../bench/generate.js'

const CRASH_WORKER = fileURLToPath(new URL('../fixtures/crash.worker.mjs', import.meta.url))
const THROWING_WORKER = fileURLToPath(new URL('../fixtures/throwing.worker.mjs', import.meta.url))
// The message test/fixtures/throwing.worker.mjs throws (a .mjs fixture has no types to import).
const BUG_MESSAGE = "Cannot read properties of undefined (reading 'lines')"

const ADD_OP = {
  kind: 'add',
  path: 'a.txt',
  patchLine: 2,
  content: 'hello\n',
  overwrite: true,
} as const

const pools: JobPool[] = []
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()))
})

function pool(options: ConstructorParameters<typeof JobPool>[0] = {}): JobPool {
  const p = new JobPool(options)
  pools.push(p)
  return p
}

describe('JobPool', () => {
  it('parses in a worker thread and returns the same plan as inline parsing', async () => {
    const text = '*** Begin Patch\n*** Add File: a.txt\n+hello\n*** End Patch\n'
    const plan = await pool({ maxThreads: 1 }).parse({
      protocol: JOB_PROTOCOL,
      text,
      format: 'auto',
    })
    expect(plan).toEqual({
      format: 'codex',
      ops: [{ kind: 'add', path: 'a.txt', patchLine: 2, content: 'hello\n', overwrite: true }],
    })
  })

  it('returns parse failures as EditError with their code and line', async () => {
    const error = await pool({ maxThreads: 1 })
      .parse({
        protocol: JOB_PROTOCOL,
        text: '*** Begin Patch\n*** Frobnicate: x\n*** End Patch\n',
        format: 'codex',
      })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(EditError)
    expect(error).toMatchObject({ code: 'PARSE_BAD_HEADER', patchLine: 2 })
  })

  it('reports a worker that dies mid-task as WORKER_CRASHED, retryable', async () => {
    const error = await pool({ maxThreads: 1, filename: CRASH_WORKER })
      .parse({ protocol: JOB_PROTOCOL, text: 'x', format: 'auto' })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(EditError)
    expect(error).toMatchObject({ code: 'WORKER_CRASHED', retryable: true })
  })

  it('reports an aborted job as REQUEST_CANCELLED', async () => {
    const controller = new AbortController()
    controller.abort()
    const error = await pool({ maxThreads: 1 })
      .parse({ protocol: JOB_PROTOCOL, text: 'x', format: 'auto' }, controller.signal)
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'REQUEST_CANCELLED', retryable: true })
  })

  it('treats a job protocol mismatch as a bug, not a retryable failure', async () => {
    const error = await pool({ maxThreads: 1 })
      .parse({ protocol: JOB_PROTOCOL + 1, text: 'x', format: 'auto' })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect(error).not.toBeInstanceOf(EditError)
    expect((error as Error).message).toMatch(
      `job protocol ${JOB_PROTOCOL + 1} does not match worker protocol ${JOB_PROTOCOL}`,
    )
  })

  it('raises an exception thrown by the pure code as the inline route does, not WORKER_CRASHED (#8)', async () => {
    // Inline, the pure function's exception reaches the caller unchanged.
    const inline = ((): unknown => {
      try {
        throw new TypeError(BUG_MESSAGE)
      } catch (e) {
        return e
      }
    })()
    const pooled = await pool({ maxThreads: 1, filename: THROWING_WORKER })
      .parse({ protocol: JOB_PROTOCOL, text: 'x', format: 'auto' })
      .catch((e: unknown) => e)
    expect(pooled).toBeInstanceOf(Error)
    expect(pooled).not.toBeInstanceOf(EditError)
    expect(pooled).toMatchObject({ name: 'TypeError', message: BUG_MESSAGE })
    // The worker's stack, so the bug report points into the pure code.
    expect((pooled as Error).stack).toContain('throwing.worker.mjs')
    // The CLI reports both the same way: INTERNAL, exit 70.
    expect(internalErrorData(pooled)).toEqual(internalErrorData(inline))
    expect(exitCodeFor(internalErrorData(pooled))).toBe(70)
  })

  it('recognises a protocol mismatch by value, never by the text of an error (#8)', async () => {
    // This task throws outside the reply envelope with protocol words in its message; only a
    // typed protocol-mismatch reply is a stale build, so this reads as a failed worker.
    const error = await pool({ maxThreads: 1, filename: THROWING_WORKER })
      .compute({ protocol: JOB_PROTOCOL, format: 'codex', op: ADD_OP, source: null })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(EditError)
    expect(error).toMatchObject({ code: 'WORKER_CRASHED', retryable: true })
  })

  it('computes in a worker thread, replying through the envelope', async () => {
    const computed = await pool({ maxThreads: 1 }).compute({
      protocol: JOB_PROTOCOL,
      format: 'codex',
      op: ADD_OP,
      source: null,
    })
    expect(computed).toMatchObject({ additions: 1, deletions: 0, warnings: [] })
    expect(new TextDecoder().decode(computed.after ?? new Uint8Array())).toBe('hello\n')
  })
})

describe('engine routes', () => {
  let root = ''
  afterEach(async () => {
    if (root !== '') await rm(root, { recursive: true, force: true })
  })

  it('gives identical results inline and in the pool for a large multi-file patch', async () => {
    root = await mkdtemp(path.join(tmpdir(), 'patchloom-routes-'))
    const ws = generateWorkspace(12, 3_000, 3)
    await writeWorkspace(root, ws)
    const patch = codexPatch(ws, 12, 6)
    const engine = createEngine({ root, pool: { maxThreads: 2 } })
    try {
      const inline = await engine.check(patch, { route: 'inline' })
      const pooled = await engine.check(patch, { route: 'pool' })
      expect(pooled).toEqual(inline)
      expect(inline.files).toHaveLength(12)
      expect(inline.files.every((f) => f.additions === 6 && f.deletions === 6)).toBe(true)
      // auto (whichever route its size picks) agrees too.
      expect(await engine.check(patch)).toEqual(inline)
    } finally {
      await engine.close()
    }
  })

  it('gives up with REQUEST_TIMEOUT when verification outlasts timeoutMs, writing nothing', async () => {
    root = await mkdtemp(path.join(tmpdir(), 'patchloom-routes-'))
    const ws = generateWorkspace(12, 3_000, 5)
    await writeWorkspace(root, ws)
    const engine = createEngine({ root, pool: { maxThreads: 2 } })
    try {
      // Verifying 12 files of 3,000 lines in the pool takes tens of milliseconds at least.
      const error = await engine
        .apply(codexPatch(ws, 12, 6), { route: 'pool', timeoutMs: 1 })
        .catch((e: unknown) => e)
      expect(error).toMatchObject({ code: 'REQUEST_TIMEOUT', retryable: true })
      const untouched = await engine.check(codexPatch(ws, 12, 6))
      expect(untouched.files).toHaveLength(12)
    } finally {
      await engine.close()
    }
  })

  it('cancels a request whose signal fires, writing nothing', async () => {
    root = await mkdtemp(path.join(tmpdir(), 'patchloom-routes-'))
    const ws = generateWorkspace(2, 50, 4)
    await writeWorkspace(root, ws)
    const engine = createEngine({ root })
    const controller = new AbortController()
    controller.abort(new Error('caller gave up'))
    try {
      const error = await engine
        .apply(codexPatch(ws, 2, 1), { signal: controller.signal })
        .catch((e: unknown) => e)
      expect(error).toMatchObject({ code: 'REQUEST_CANCELLED' })
    } finally {
      await engine.close()
    }
  })
})
