// A commit's compute from git's own diff (src/replay/commit.ts): no model wrote it, so it is
// read as it is.
import { describe, expect, it } from 'vitest'
import { computeCommit } from '../../../src/replay/commit.js'
import type { Tree } from '../../../src/replay/tree.js'
import { gitBlobId } from '../../../src/text/blob-id.js'

const encode = (text: string) => new TextEncoder().encode(text)

describe('computeCommit', () => {
  it('keeps a stop token that ends the diff: in git history it is a line of the file', () => {
    const before = encode('doc one<|endoftext|>\n')
    const after = encode('doc one<|endoftext|>\ndoc two<|endoftext|>\n')
    const sources: Tree = new Map([
      ['corpus.txt', { mode: '100644', id: gitBlobId(before), bytes: before }],
    ])
    const patch = encode(
      'diff --git a/corpus.txt b/corpus.txt\n--- a/corpus.txt\n+++ b/corpus.txt\n' +
        '@@ -1 +1,2 @@\n doc one<|endoftext|>\n+doc two<|endoftext|>\n',
    )
    const changes = [
      {
        status: 'M' as const,
        srcMode: '100644',
        dstMode: '100644',
        srcId: gitBlobId(before),
        dstId: gitBlobId(after),
        path: 'corpus.txt',
      },
    ]
    const applied = computeCommit(sources, { patch, changes, via: 'unified' })
    expect(applied.failures).toEqual([])
    expect(applied.changes.get('corpus.txt')?.bytes).toEqual(after)
  })
})
