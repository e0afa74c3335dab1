// The progress line `replay --queue` draws on a terminal: ranges done, commits across all
// workers, their rate since the start, and the time left at that rate.
import { describe, expect, it } from 'vitest'
import { progressLine } from '../../../src/cli/commands/queue.js'

describe('progressLine', () => {
  it('gives ranges, commits, the rate so far and the time left at it', () => {
    expect(progressLine({ ranges: 24, rangesDone: 6, commits: 6000, commitsDone: 1500 }, 2)).toBe(
      'replay --queue: ranges 6/24, commits 1500/6000, 750 commits/s, ETA 6 s',
    )
  })

  it('says the time left is unknown until a commit is done', () => {
    expect(progressLine({ ranges: 3, rangesDone: 0, commits: 90, commitsDone: 0 }, 0)).toBe(
      'replay --queue: ranges 0/3, commits 0/90, 0 commits/s, ETA ?',
    )
  })

  it('ends at no time left', () => {
    expect(progressLine({ ranges: 3, rangesDone: 3, commits: 90, commitsDone: 90 }, 3)).toBe(
      'replay --queue: ranges 3/3, commits 90/90, 30 commits/s, ETA 0 s',
    )
  })
})
