// The server's per-file queue: pathLocks serves the claimants of each key strictly in the order
// they claimed it, requests naming several files included (no deadlock, no overtaking), and
// through the edit service, edits to one file land in the order they arrived, a rebase inside
// its own turn: disjoint edits of many agents all land, overlapping ones are refused and lose
// nothing.
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { pathLocks } from '../../../src/journal/lock.js'
import { EditService, type Caller } from '../../../src/server/service.js'
import type { ToolName } from '../../../src/server/tools.js'
import { prng } from '../../../bench/generate.js'
import { makeTempDir } from '../../helpers/tree.js'

/** Lets every pending promise callback run (several turns of the microtask queue, one macrotask). */
const settle = () => new Promise((resolve) => setImmediate(resolve))

interface Claim {
  readonly id: number
  readonly keys: readonly string[]
}

/**
 * Claims each of `claims` in order, holding each for `holdTurns(id)` macrotasks, and records
 * when each got its keys; checks that no two holders of one key ever overlap.
 */
async function runClaims(
  claims: readonly Claim[],
  holdTurns: (id: number) => number,
): Promise<number[]> {
  const acquire = pathLocks()
  const order: number[] = []
  const holding = new Map<string, number>()
  await Promise.all(
    claims.map(async ({ id, keys }) => {
      const release = await acquire(keys)
      for (const key of keys) {
        expect(holding.get(key), `${key} held by two claimants`).toBeUndefined()
        holding.set(key, id)
      }
      order.push(id)
      for (let i = 0; i < holdTurns(id); i++) await settle()
      for (const key of keys) holding.delete(key)
      release()
    }),
  )
  return order
}

/** For each key, the ids that claimed it, in claim order, and in the order they got it. */
function perKey(claims: readonly Claim[], order: readonly number[]) {
  const keys = new Set(claims.flatMap((c) => c.keys))
  return [...keys].map((key) => {
    const claimed = claims.filter((c) => c.keys.includes(key)).map((c) => c.id)
    const served = order.filter((id) => claimed.includes(id))
    return { key, claimed, served }
  })
}

describe('pathLocks order', () => {
  it('serves the claimants of one key in claim order, whatever their hold times', async () => {
    const claims = Array.from({ length: 30 }, (_, id) => ({ id, keys: ['x'] }))
    const random = prng(7)
    const holds = claims.map(() => Math.floor(random() * 4))
    expect(await runClaims(claims, (id) => holds[id] as number)).toEqual(claims.map((c) => c.id))
  })

  it('makes a claim of a free key wait behind an earlier claim of several keys that waits', async () => {
    // 0 holds x; 1 wants x and y; 2 wants only y, which is free when it claims: it still waits
    // for 1, which claimed y first; 3 wants x and comes after 1.
    const claims: Claim[] = [
      { id: 0, keys: ['x'] },
      { id: 1, keys: ['x', 'y'] },
      { id: 2, keys: ['y'] },
      { id: 3, keys: ['x'] },
      { id: 4, keys: ['z', 'y'] },
      { id: 5, keys: ['z'] },
    ]
    const order = await runClaims(claims, () => 2)
    expect(order.indexOf(1)).toBeLessThan(order.indexOf(2))
    for (const { key, claimed, served } of perKey(claims, order))
      expect(served, `key ${key}`).toEqual(claimed)
  })

  it('never deadlocks on claims of several keys named in any order, and never overtakes on any key', async () => {
    const random = prng(42)
    const names = ['a', 'b', 'c', 'd', 'e']
    const claims: Claim[] = Array.from({ length: 200 }, (_, id) => {
      const keys = names.filter(() => random() < 0.4)
      if (keys.length === 0) keys.push(names[id % names.length] as string)
      // Shuffled: a claim names its keys in its own order.
      keys.sort(() => random() - 0.5)
      return { id, keys }
    })
    const holds = claims.map(() => Math.floor(random() * 3))
    const order = await runClaims(claims, (id) => holds[id] as number)
    expect(order).toHaveLength(claims.length)
    for (const { key, claimed, served } of perKey(claims, order))
      expect(served, `key ${key}`).toEqual(claimed)
  })

  it('gives a claim that waited longest its key before any newer claim (no starving)', async () => {
    const acquire = pathLocks()
    const first = await acquire(['hot'])
    const got: string[] = []
    const old = acquire(['hot']).then((release) => {
      got.push('old')
      release()
    })
    // Newer claims keep arriving while the old one waits, some of them before the holder is done.
    const newer: Promise<void>[] = []
    for (let i = 0; i < 20; i++) {
      newer.push(
        acquire(['hot']).then((release) => {
          got.push(`new ${i}`)
          release()
        }),
      )
      if (i === 10) first()
      await settle()
    }
    await Promise.all([old, ...newer])
    expect(got).toEqual(['old', ...Array.from({ length: 20 }, (_, i) => `new ${i}`)])
  })

  it('frees a key once its last claimant releases, for a claim made later', async () => {
    const acquire = pathLocks()
    const one = await acquire(['p', 'q'])
    one()
    let took = false
    const two = acquire(['q']).then((release) => {
      took = true
      return release
    })
    await settle()
    expect(took).toBe(true)
    ;(await two)()
  })
})

// ---------------------------------------------------------------------------------------------
// Through the edit service: one file, many agents.

type Out = { ok: boolean; structured: Record<string, any>; text: string }

let root = ''
let service: EditService

const agent = (k: number): Caller => ({ agent: `agent-${k}` })
const call = async (tool: ToolName, args: Record<string, unknown>, caller: Caller) =>
  (await service.call(tool, args, caller)) as Out

/** Agent k's section heading: fixed width, so no heading is part of another. */
const heading = (k: number) => `section ${String(k).padStart(2, '0')}`
/** A file with one section per agent, a filler line after each: its heading, then its lines. */
const sections = (agents: number) =>
  Array.from({ length: agents }, (_, k) => `${heading(k)}\nfiller\n`).join('')

beforeEach(async () => {
  root = await makeTempDir('patchloom-file-queue-')
  service = await EditService.open({ workspaces: [{ root }], workers: false, durability: 'fast' })
})
afterEach(async () => {
  await service.close()
  await rm(root, { recursive: true, force: true })
})

/** Checks that each result's previous_hash is the one before it's content_hash: one chain. */
function expectChain(results: readonly Out[], from: string): void {
  let hash = from
  for (const [i, out] of results.entries()) {
    expect(out.ok, `edit ${i}: ${out.text}`).toBe(true)
    const file = out.structured['files'][0]
    expect(file.previous_hash, `edit ${i} landed out of arrival order`).toBe(hash)
    hash = file.content_hash
  }
}

describe('edits to one file through the service', () => {
  it('lands a stale edit that needs a rebase in its turn, before every newer edit', async () => {
    const agents = 8
    await writeFile(join(root, 'hot.txt'), sections(agents))
    for (let k = 0; k < agents; k++) await call('read_file', { path: 'hot.txt' }, agent(k))
    // Agent 7 changes the file: every other agent's read is now stale, and each edit below is
    // rebased (a retry inside the server) in its own turn.
    const seven = await call(
      'edit_file',
      { path: 'hot.txt', old_string: `${heading(7)}\n`, new_string: `${heading(7)}\nseven\n` },
      agent(7),
    )
    const results = await Promise.all(
      Array.from({ length: agents - 1 }, (_, k) =>
        call(
          'edit_file',
          {
            path: 'hot.txt',
            old_string: `${heading(k)}\n`,
            new_string: `${heading(k)}\nedit ${k}\n`,
          },
          agent(k),
        ),
      ),
    )
    expectChain(results, seven.structured['files'][0].content_hash)
    for (const out of results) expect(out.structured['files'][0].rebased_from).toMatch(/^sha256:/)
  })

  it('lands every edit of agents editing their own regions of one file at once, in arrival order', async () => {
    const agents = 12
    const rounds = 4
    await writeFile(join(root, 'hot.txt'), sections(agents))
    const last = Array.from({ length: agents }, (_, k) => heading(k))
    let hash = ''
    for (let round = 0; round < rounds; round++) {
      // Each agent reads, then all edit at once, without expected_hash (read-before-write state).
      for (let k = 0; k < agents; k++) {
        const read = await call('read_file', { path: 'hot.txt' }, agent(k))
        hash = read.structured['content_hash']
      }
      const results = await Promise.all(
        last.map((line, k) =>
          call(
            'edit_file',
            { path: 'hot.txt', old_string: line, new_string: `${line}\nagent ${k} round ${round}` },
            agent(k),
          ),
        ),
      )
      expectChain(results, hash)
      // All but the first were made against a version another agent changed since.
      expect(
        results.filter((r) => r.structured['files'][0].rebased_from !== undefined),
      ).toHaveLength(agents - 1)
      for (let k = 0; k < agents; k++) last[k] = `agent ${k} round ${round}`
    }
    const expected = Array.from(
      { length: agents },
      (_, k) =>
        `${heading(k)}\n${Array.from({ length: rounds }, (_, r) => `agent ${k} round ${r}\n`).join('')}filler\n`,
    ).join('')
    expect(await readFile(join(root, 'hot.txt'), 'utf8')).toBe(expected)
  })

  it('refuses overlapping edits with the reason and the file as it is, losing nothing that landed', async () => {
    const agents = 6
    await writeFile(join(root, 'hot.txt'), sections(2))
    for (let k = 0; k < agents; k++) await call('read_file', { path: 'hot.txt' }, agent(k))
    // Every agent appends right after `section 00`: after the first lands, the rest touch the
    // lines it changed (or the lines next to them).
    const results = await Promise.all(
      Array.from({ length: agents }, (_, k) =>
        call(
          'edit_file',
          { path: 'hot.txt', old_string: 'section 00\n', new_string: `section 00\nagent ${k}\n` },
          agent(k),
        ),
      ),
    )
    expect(results[0]?.ok, results[0]?.text).toBe(true)
    const after = results[0]?.structured['files'][0].content_hash
    const content = await readFile(join(root, 'hot.txt'), 'utf8')
    expect(content).toBe('section 00\nagent 0\nfiller\nsection 01\nfiller\n')
    for (const out of results.slice(1)) {
      expect(out.ok).toBe(false)
      const error = out.structured['error']
      expect(error.code).toBe('FILE_HASH_MISMATCH')
      expect(error.message).toMatch(/touched the lines this edit changes/)
      expect(error.current_hash).toBe(after)
      expect(error.rebase_possible).toBe(false)
      expect(error.current.content).toBe(
        '1\tsection 00\n2\tagent 0\n3\tfiller\n4\tsection 01\n5\tfiller',
      )
    }
  })
})
