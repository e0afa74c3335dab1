import { describe, expect, it } from 'vitest'
import { WorkspaceMemory } from '../../../src/server/memory.js'

const H = (n: number): string => `sha256:${String(n).padStart(64, '0')}`

describe('WorkspaceMemory', () => {
  it('remembers what each agent saw, separately', () => {
    const memory = new WorkspaceMemory()
    memory.see('a', 'x.ts', H(1))
    memory.see('b', 'x.ts', H(2))
    expect(memory.seen('a', 'x.ts')).toBe(H(1))
    expect(memory.seen('b', 'x.ts')).toBe(H(2))
    expect(memory.seen('c', 'x.ts')).toBeUndefined()
    memory.see('a', 'x.ts', null)
    expect(memory.seen('a', 'x.ts')).toBeUndefined()
  })

  it('forgets the least recently used files beyond the per-agent bound', () => {
    const memory = new WorkspaceMemory({ filesPerAgent: 2 })
    memory.see('a', 'one', H(1))
    memory.see('a', 'two', H(2))
    expect(memory.seen('a', 'one')).toBe(H(1)) // touched: now the most recent
    memory.see('a', 'three', H(3))
    expect(memory.seen('a', 'two')).toBeUndefined()
    expect(memory.seen('a', 'one')).toBe(H(1))
    expect(memory.seen('a', 'three')).toBe(H(3))
  })

  it('forgets the least recently active agents beyond the bound', () => {
    const memory = new WorkspaceMemory({ agents: 2 })
    memory.see('a', 'f', H(1))
    memory.see('b', 'f', H(2))
    memory.see('c', 'f', H(3))
    expect(memory.seen('a', 'f')).toBeUndefined()
    expect(memory.seen('c', 'f')).toBe(H(3))
  })

  it('keeps versions within a byte budget, newest first', () => {
    const memory = new WorkspaceMemory({ versionBytes: 40 }) // 20 UTF-16 code units
    memory.keepVersion(H(1), 'a'.repeat(8))
    memory.keepVersion(H(2), 'b'.repeat(8))
    expect(memory.version(H(1))).toBe('a'.repeat(8))
    memory.keepVersion(H(3), 'c'.repeat(8))
    expect(memory.version(H(2))).toBeUndefined()
    expect(memory.version(H(3))).toBe('c'.repeat(8))
    memory.keepVersion(H(4), 'd'.repeat(30)) // over the whole budget: not kept, nothing evicted
    expect(memory.version(H(4))).toBeUndefined()
    expect(memory.version(H(3))).toBe('c'.repeat(8))
  })

  it("pops an agent's transactions newest first and keeps a bounded list", () => {
    const memory = new WorkspaceMemory({ transactionsPerAgent: 2 })
    memory.pushTransaction('a', 't1')
    memory.pushTransaction('a', 't2')
    memory.pushTransaction('a', 't3')
    memory.forgetTransaction('a', 't3')
    expect(memory.popTransaction('a')).toBe('t2')
    expect(memory.popTransaction('a')).toBeUndefined()
    expect(memory.popTransaction('nobody')).toBeUndefined()
  })

  it("lists an agent's transactions oldest first, as a copy", () => {
    const memory = new WorkspaceMemory()
    memory.pushTransaction('a', 't1')
    memory.pushTransaction('a', 't2')
    const listed = memory.transactionsOf('a')
    expect(listed).toEqual(['t1', 't2'])
    memory.forgetTransaction('a', 't1')
    expect(listed).toEqual(['t1', 't2'])
    expect(memory.transactionsOf('a')).toEqual(['t2'])
    expect(memory.transactionsOf('nobody')).toEqual([])
  })
})
