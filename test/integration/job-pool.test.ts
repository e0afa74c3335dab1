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
import { codexPatch, generateWorkspace, writeWorkspace } from '../../bench/generate.js'

const CRASH_WORKER = fileURLToPath(new URL('../fixtures/crash.worker.mjs', import.meta.url))

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
    expect(error).not.toBeInstanceOf(EditError)
    expect((error as Error).message).toMatch(/job protocol/)
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
