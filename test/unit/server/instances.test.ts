import type { McpServer } from '@modelcontextprotocol/server'
import { describe, expect, it } from 'vitest'
import { InstancePool } from '../../../src/server/instances.js'

/** Stand-ins for McpServer instances: only close() is used by the pool. */
function fakes(): { make: () => McpServer; made: number } {
  const state = { made: 0, make: () => ({}) as McpServer }
  state.make = () => {
    state.made++
    return { close: async () => undefined, server: {} } as unknown as McpServer
  }
  return state
}

describe('InstancePool', () => {
  it('lends an instance again once it is closed, and never one in use', async () => {
    const f = fakes()
    const pool = new InstancePool(f.make)
    const a = pool.lend('legacy')
    const b = pool.lend('legacy')
    expect(a).not.toBe(b)
    await a.close()
    expect(pool.lend('legacy')).toBe(a)
    expect(f.made).toBe(2)
  })

  it('takes a doubly closed instance back once', async () => {
    const pool = new InstancePool(fakes().make)
    const a = pool.lend('modern')
    await a.close()
    await a.close()
    const first = pool.lend('modern')
    const second = pool.lend('modern')
    expect(first).toBe(a)
    expect(second).not.toBe(a)
  })

  it('takes an instance back when its connection closes, as the SDK ends a modern exchange', () => {
    const pool = new InstancePool(fakes().make)
    const a = pool.lend('modern')
    ;(a.server as { onclose?: () => void }).onclose?.()
    expect(pool.lend('modern')).toBe(a)
  })

  it('keeps the eras apart', async () => {
    const pool = new InstancePool(fakes().make)
    const legacy = pool.lend('legacy')
    await legacy.close()
    expect(pool.lend('modern')).not.toBe(legacy)
    expect(pool.lend('legacy')).toBe(legacy)
    expect(pool.made).toBe(2)
  })
})
