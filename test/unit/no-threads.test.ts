// The fast loop's promise: the `unit` project starts no worker threads, and says so when a
// test tries (test/helpers/no-threads.ts). Tests that need threads live in `pool` and `e2e`.
import { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'

describe('unit project', () => {
  it('refuses to start a worker thread, naming where such a test belongs', () => {
    expect(() => new Worker('export {}', { eval: true })).toThrow(/pool or e2e project/)
  })
})
