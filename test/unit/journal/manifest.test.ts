// decodeManifest trusts nothing: every field is checked, and any path that could leave the
// workspace makes the whole manifest corrupt. Transaction ids sort by creation time.
import { describe, expect, it } from 'vitest'
import {
  decodeManifest,
  encodeManifest,
  isSafeRelative,
  isTransactionId,
  newTransactionId,
  transactionTime,
  type Manifest,
  type ManifestStep,
} from '../../../src/journal/manifest.js'

const ID = '20261130T143109123Z-k3x9q2'

const VALID: Manifest = {
  version: 2,
  id: ID,
  createdAt: '2026-11-30T14:31:09.123Z',
  durability: 'full',
  summary: { kind: 'apply', files: [{ path: 'a.txt', op: 'update', additions: 1, deletions: 1 }] },
  steps: [
    {
      kind: 'write',
      path: 'a.txt',
      before: { hash: 'sha256:aa', permissions: 0o644 },
      after: { hash: 'sha256:bb', permissions: 0o755 },
      createdDirs: [],
    },
    {
      kind: 'write',
      path: 'new/dir/b.txt',
      before: null,
      after: { hash: 'sha256:cc', permissions: 0o644 },
      createdDirs: ['new', 'new/dir'],
    },
    {
      kind: 'remove',
      path: 'c.txt',
      before: { hash: 'sha256:dd', permissions: 0o600 },
      after: null,
      createdDirs: [],
    },
  ],
}

const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value))
const withStep = (i: number, change: Record<string, unknown>) =>
  json({ ...VALID, steps: VALID.steps.map((s, j) => (j === i ? { ...s, ...change } : s)) })

describe('decodeManifest', () => {
  it('round-trips an encoded manifest, of version 2 (new/ and old/) and 3 (flat, D-122)', () => {
    expect(decodeManifest(encodeManifest(VALID))).toEqual(VALID)
    const flat: Manifest = { ...VALID, version: 3 }
    expect(decodeManifest(encodeManifest(flat))).toEqual(flat)
  })

  const REJECTED: [string, Uint8Array, string][] = [
    ['bad JSON', new TextEncoder().encode('{"version":1,'), 'not valid JSON'],
    ['invalid UTF-8', new Uint8Array([0x7b, 0xff, 0x7d]), 'not valid JSON'],
    ['an array', json([VALID]), 'not a JSON object'],
    ['an unknown version', json({ ...VALID, version: 4 }), 'unknown version 4'],
    ['version 1 (unsigned)', json({ ...VALID, version: 1 }), 'before transactions were signed'],
    ['a missing version', json({ ...VALID, version: undefined }), 'unknown version'],
    ['a bad id', json({ ...VALID, id: '../x' }), 'bad id'],
    ['a missing createdAt', json({ ...VALID, createdAt: 5 }), 'bad createdAt'],
    ['a bad durability', json({ ...VALID, durability: 'sometimes' }), 'bad durability'],
    ['a bad summary kind', json({ ...VALID, summary: { kind: 'redo', files: [] } }), 'bad summary'],
    [
      'summary files not a list',
      json({ ...VALID, summary: { kind: 'apply' } }),
      'bad summary files',
    ],
    ['steps not a list', json({ ...VALID, steps: {} }), 'bad steps'],
    ['a step that is not an object', json({ ...VALID, steps: [null] }), 'step 0: not an object'],
    ['an unknown step kind', withStep(0, { kind: 'chmod' }), 'step 0: bad kind'],
    ["a path with '..'", withStep(1, { path: 'new/../../x' }), 'step 1: unsafe path'],
    ['a leading ..', withStep(0, { path: '../a.txt' }), 'unsafe path ../a.txt'],
    ['an absolute path', withStep(0, { path: '/etc/passwd' }), 'unsafe path /etc/passwd'],
    ['an empty path', withStep(0, { path: '' }), 'unsafe path'],
    ['an empty segment', withStep(0, { path: 'a//b' }), 'unsafe path a//b'],
    ["a '.' segment", withStep(0, { path: './a.txt' }), 'unsafe path'],
    ['a backslash', withStep(0, { path: 'a\\..\\b' }), 'unsafe path'],
    ['a NUL', withStep(0, { path: 'a\0b' }), 'unsafe path'],
    ['a path that is not a string', withStep(0, { path: 3 }), 'unsafe path 3'],
    ['a write without an after state', withStep(0, { after: null }), 'step 0: bad after state'],
    [
      'a remove with an after state',
      withStep(2, { after: VALID.steps[0]?.after }),
      'step 2: bad after state',
    ],
    ['a remove without a before state', withStep(2, { before: null }), 'step 2: bad after state'],
    [
      'a before state without a hash',
      withStep(0, { before: { permissions: 0o644 } }),
      'bad before state',
    ],
    [
      'a mode above 0o7777',
      withStep(0, { after: { hash: 'sha256:x', permissions: 0o10000 } }),
      'bad after state',
    ],
    [
      'a negative mode',
      withStep(0, { before: { hash: 'sha256:x', permissions: -1 } }),
      'bad before state',
    ],
    [
      'a fractional mode',
      withStep(0, { before: { hash: 'sha256:x', permissions: 1.5 } }),
      'bad before state',
    ],
    ['createdDirs not a list', withStep(1, { createdDirs: 'new' }), 'step 1: bad createdDirs'],
    ["a created dir with '..'", withStep(1, { createdDirs: ['new', '..'] }), 'bad createdDirs'],
    ['an absolute created dir', withStep(1, { createdDirs: ['/tmp'] }), 'bad createdDirs'],
  ]
  for (const [what, bytes, reason] of REJECTED) {
    it(`rejects ${what}`, () => {
      const decoded = decodeManifest(bytes)
      expect(typeof decoded).toBe('string')
      expect(decoded).toContain(reason)
    })
  }

  it('accepts a state with mode 0 and one with every mode bit', () => {
    const steps: ManifestStep[] = [
      {
        ...VALID.steps[0]!,
        before: { hash: 'sha256:x', permissions: 0 },
        after: { hash: 'sha256:y', permissions: 0o7777 },
      },
    ]
    expect(decodeManifest(encodeManifest({ ...VALID, steps }))).toEqual({ ...VALID, steps })
  })
})

describe('isSafeRelative', () => {
  it('accepts nested relative paths and names with dots', () => {
    for (const p of ['a', 'a/b/c.txt', '.hidden', 'a/..b', 'a/b..', '...'])
      expect(isSafeRelative(p), p).toBe(true)
  })

  it('rejects anything that could leave the root', () => {
    for (const p of [
      '',
      '/',
      '/a',
      '..',
      'a/..',
      '../a',
      'a/../b',
      '.',
      'a/./b',
      'a/',
      'a\\b',
      'a\0',
    ])
      expect(isSafeRelative(p), p).toBe(false)
  })
})

describe('transaction ids', () => {
  it('have the documented shape and carry their time', () => {
    const now = new Date('2026-11-30T14:31:09.123Z')
    const id = newTransactionId(now)
    expect(id).toMatch(/^20261130T143109123Z-[0-9a-z]{6}$/)
    expect(isTransactionId(id)).toBe(true)
    expect(transactionTime(id)).toBe(now.getTime())
  })

  it('sort by creation time, whatever their random suffix', () => {
    const times = [0, 1, 999, 1000, 59_999, 60_000, 3_600_000, 86_400_000, 400 * 86_400_000]
    const base = Date.parse('2026-12-31T23:59:59.000Z')
    const ids = times.map((t, i) =>
      newTransactionId(new Date(base + t), () => (i % 2 === 0 ? 0.99 : 0)),
    )
    expect([...ids].sort()).toEqual(ids)
  })

  it('uses the random source for a six-character suffix', () => {
    expect(newTransactionId(new Date(0), () => 0)).toBe('19700101T000000000Z-000000')
    expect(newTransactionId(new Date(0), () => 0.999)).toBe('19700101T000000000Z-zzzzzz')
  })

  it('rejects anything else as an id', () => {
    for (const id of [
      '',
      '20261130T143109123Z',
      '20261130T143109123Z-ABCDEF',
      '20261130T143109123Z-abc',
      `${ID}.pending`,
      `../${ID}`,
    ])
      expect(isTransactionId(id), id).toBe(false)
  })
})
