// The repository generator of bench/large.bench.ts: seeded (the same seed, the same tree), files
// spread over nested directories with unique paths, and a change whose blocks never overlap at
// the bench's sizes (a Codex patch cannot express overlapping chunks; MATCH_OVERLAP would fail
// the Codex rows), applied by changedTexts exactly where signatureChanges says.
import { describe, expect, it } from 'vitest'
import {
  changedTexts,
  generateRepository,
  signatureChanges,
  workspaceBytes,
} from '../../../bench/generate.js'

describe('generateRepository', () => {
  it('is deterministic per seed and spreads unique paths over 1-4 nested directories', () => {
    const a = generateRepository(500, 300, 9)
    expect(generateRepository(500, 300, 9)).toEqual(a)
    expect(generateRepository(500, 300, 10)).not.toEqual(a)
    const paths = a.files.map((f) => f.path)
    expect(new Set(paths).size).toBe(paths.length)
    const depths = new Set(paths.map((p) => p.split('/').length - 2))
    expect([...depths].sort()).toEqual([1, 2, 3, 4])
    expect(new Set(paths.map((p) => p.slice(0, p.lastIndexOf('/')))).size).toBeGreaterThan(50)
    for (const file of a.files) expect(file.lines).toHaveLength(300)
    expect(workspaceBytes(a)).toBe(
      a.files.reduce((n, f) => n + Buffer.byteLength(f.lines.join('\n') + '\n'), 0),
    )
  })

  it.each([
    [300, 10],
    [40, 3],
  ])('gives %i-line files %i separate, non-overlapping changes', (lines, hunks) => {
    const ws = generateRepository(50, lines, 9)
    const changes = signatureChanges(ws, 50, hunks)
    const texts = changedTexts(ws, changes)
    expect(texts.size).toBe(50)
    for (const file of ws.files) {
      const mine = changes.filter((c) => c.path === file.path)
      expect(mine).toHaveLength(hunks)
      for (let i = 1; i < mine.length; i++) {
        const prev = mine[i - 1]!
        expect(mine[i]!.start).toBeGreaterThanOrEqual(prev.start + prev.before.length)
      }
      const after = (texts.get(file.path) as string).split('\n')
      const differing = file.lines.flatMap((line, i) => (line === after[i] ? [] : [i]))
      expect(differing).toHaveLength(hunks)
      for (const i of differing) expect(after[i]).toContain('options?: Options')
    }
  })
})
