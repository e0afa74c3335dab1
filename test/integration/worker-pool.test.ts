// Real worker threads from the built dist/ (run `npm run build` first; `npm test` does).
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createEngineWithInternals } from '../../src/engine/engine.js'
import { WorkerPool } from '../../src/threads/worker-pool.js'
import { JOB_PROTOCOL, type VerifyJob, type VerifyReply } from '../../src/threads/jobs.js'
import type { OpOutcome, VerifySettings } from '../../src/engine/verify.js'
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

const pools: WorkerPool[] = []
const scratches: string[] = []
let scratch = ''
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()))
  for (const dir of scratches.splice(0)) await rm(dir, { recursive: true, force: true })
})

/** The pool with the engine's verify task typed, as src/engine/dispatch.ts sends it. */
class VerifyPool extends WorkerPool {
  verify(job: VerifyJob<VerifySettings>, signal?: AbortSignal): Promise<VerifyReply<OpOutcome>> {
    return this.run<VerifyReply<OpOutcome>>('verify', job, signal)
  }
}

function pool(options: ConstructorParameters<typeof WorkerPool>[0] = {}): VerifyPool {
  const p = new VerifyPool(options)
  pools.push(p)
  return p
}

async function settingsFor(): Promise<VerifySettings> {
  scratch = await mkdtemp(path.join(tmpdir(), 'patchloom-job-pool-'))
  scratches.push(scratch)
  return {
    root: scratch,
    rootReal: await realpath(scratch),
    denyGlobs: [],
    caseInsensitive: false,
    format: 'codex',
    maxFileBytes: 1024 * 1024,
    rawPatch: false,
    diffs: true,
    keepBefore: false,
    keepAfter: true,
    finalNewline: 'format',
  }
}

async function verifyJob(
  input: VerifyJob['input'],
  protocol = JOB_PROTOCOL,
): Promise<VerifyJob<VerifySettings>> {
  return { protocol, input, settings: await settingsFor() }
}

const someOps = { kind: 'ops', ops: [ADD_OP] } as const

describe('WorkerPool', () => {
  it('verifies a batch in a worker thread, which reads the files itself', async () => {
    const job = await verifyJob(someOps)
    await writeFile(path.join(scratch, 'a.txt'), 'old\n')
    const reply = await pool({ maxThreads: 1 }).verify(job)
    expect(reply.parsed).toBe(true)
    const [outcome] = reply.outcomes
    if (outcome?.ok !== true) throw new Error(`not verified: ${JSON.stringify(outcome)}`)
    const { verified } = outcome
    expect(verified.prepared.target.snap.kind).toBe('file')
    expect(verified.computed).toMatchObject({ additions: 1, deletions: 1, warnings: [] })
    expect(new TextDecoder().decode(verified.computed.after ?? new Uint8Array())).toBe('hello\n')
  })

  it('reports its threads, tasks in flight and tasks completed', async () => {
    const p = pool({ maxThreads: 1 })
    expect(p.stats).toEqual({
      threads: 0,
      maxThreads: 1,
      tasksInFlight: 0,
      queued: 0,
      completed: 0,
      utilization: 0,
    })
    const job = await verifyJob(someOps)
    const running = [p.verify(job), p.verify(job)]
    await Promise.resolve()
    const during = p.stats
    await Promise.all(running)
    expect(during.tasksInFlight).toBe(2)
    const after = p.stats
    expect(after).toMatchObject({ threads: 1, maxThreads: 1, tasksInFlight: 0, queued: 0 })
    expect(after.completed).toBe(2)
    expect(after.utilization).toBeGreaterThan(0)
  })

  it('returns a failure as an outcome with its phase and EditError data', async () => {
    const job = await verifyJob({ kind: 'ops', ops: [{ ...ADD_OP, path: '../outside.txt' }] })
    const [outcome] = (await pool({ maxThreads: 1 }).verify(job)).outcomes
    expect(outcome).toMatchObject({
      ok: false,
      phase: 'resolve',
      failure: { kind: 'edit', data: { code: 'PATH_OUTSIDE_ROOT', patchLine: 2 } },
    })
  })

  it('says when a run of a git diff does not parse to its sections', async () => {
    const text = 'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n'
    const p = pool({ maxThreads: 1 })
    // A run that parses to fewer ops than its sections, and one that does not parse at all.
    const short = await verifyJob({ kind: 'unified-run', text, firstLine: 1, sections: 2 })
    expect(await p.verify(short)).toEqual({ parsed: false, outcomes: [] })
    const broken = text.replace('@@ -1 +1 @@', '@@ -x +1 @@')
    const bad = await verifyJob({ kind: 'unified-run', text: broken, firstLine: 1, sections: 1 })
    expect(await p.verify(bad)).toEqual({ parsed: false, outcomes: [] })
    const good = await verifyJob({ kind: 'unified-run', text, firstLine: 1, sections: 1 })
    expect((await p.verify(good)).parsed).toBe(true)
  })

  it('reports a worker that dies mid-task as WORKER_CRASHED, retryable', async () => {
    const error = await pool({ maxThreads: 1, filename: CRASH_WORKER })
      .verify(await verifyJob(someOps))
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(EditError)
    expect(error).toMatchObject({ code: 'WORKER_CRASHED', retryable: true })
  })

  it('reports an aborted job as REQUEST_CANCELLED', async () => {
    const controller = new AbortController()
    controller.abort()
    const error = await pool({ maxThreads: 1 })
      .verify(await verifyJob(someOps), controller.signal)
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'REQUEST_CANCELLED', retryable: true })
  })

  it('treats a job protocol mismatch as a bug, not a retryable failure', async () => {
    const error = await pool({ maxThreads: 1 })
      .verify(await verifyJob(someOps, JOB_PROTOCOL + 1))
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect(error).not.toBeInstanceOf(EditError)
    expect((error as Error).message).toMatch(
      `job protocol ${JOB_PROTOCOL + 1} does not match worker protocol ${JOB_PROTOCOL}`,
    )
  })

  it('raises an exception thrown by the pure code as the inline route does, not WORKER_CRASHED', async () => {
    // Inline, the pure function's exception reaches the caller unchanged.
    const inline = ((): unknown => {
      try {
        throw new TypeError(BUG_MESSAGE)
      } catch (e) {
        return e
      }
    })()
    const pooled = await pool({ maxThreads: 1, filename: THROWING_WORKER })
      .verify(await verifyJob(someOps))
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

  it('recognises a protocol mismatch by value, never by the text of an error', async () => {
    // With no ops, the fixture throws outside the reply envelope with protocol words in its
    // message; only a typed protocol-mismatch reply is a stale build, so this reads as a
    // failed worker.
    const error = await pool({ maxThreads: 1, filename: THROWING_WORKER })
      .verify(await verifyJob({ kind: 'ops', ops: [] }))
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(EditError)
    expect(error).toMatchObject({ code: 'WORKER_CRASHED', retryable: true })
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
    const engine = createEngineWithInternals({ root, workers: { maxThreads: 2 } })
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
    const engine = createEngineWithInternals({ root, workers: { maxThreads: 2 } })
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
    const engine = createEngineWithInternals({ root })
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
