import { describe, expect, it } from 'vitest'
import { summarizePlan } from '../../../src/parse/summary.js'
import type { BinaryPatch, EditPlan, HunkLine, LineHunk } from '../../../src/types.js'

function hunk(lines: string): LineHunk {
  const body = lines.split('|').map((l) => ({ op: l[0] as HunkLine['op'], text: l.slice(1) }))
  return { patchLine: 1, hints: [], endOfFile: false, lines: body }
}

const BINARY: BinaryPatch = {
  forward: { method: 'literal', inflatedSize: 3, deflated: new Uint8Array([1, 2]) },
}
const NEAR = 'near-line' as const

describe('summarizePlan', () => {
  it('counts added and removed lines per update, across hunks', () => {
    const plan: EditPlan = {
      format: 'unified',
      ops: [
        {
          kind: 'update',
          path: 'a.ts',
          patchLine: 1,
          hunks: [hunk(' x|-y|+Y|+Z'), hunk('-q| r')],
          locate: NEAR,
        },
      ],
    }
    expect(summarizePlan(plan)).toEqual([
      { path: 'a.ts', op: 'update', additions: 2, deletions: 2 },
    ])
  })

  it('counts an added file by its lines, with or without a final newline', () => {
    const plan: EditPlan = {
      format: 'codex',
      ops: [
        { kind: 'add', path: 'n1', patchLine: 2, content: 'a\nb\n', overwrite: true },
        { kind: 'add', path: 'n2', patchLine: 5, content: 'a\nb', overwrite: true },
        {
          kind: 'add',
          path: 'empty',
          patchLine: 8,
          content: '',
          overwrite: true,
          modeAfter: '100755',
        },
      ],
    }
    expect(summarizePlan(plan)).toEqual([
      { path: 'n1', op: 'add', additions: 2, deletions: 0 },
      { path: 'n2', op: 'add', additions: 2, deletions: 0 },
      { path: 'empty', op: 'add', additions: 0, deletions: 0, modeAfter: '100755' },
    ])
  })

  it('reports a Codex delete as unknown deletions and a diff delete by its hunk', () => {
    const plan: EditPlan = {
      format: 'unified',
      ops: [
        { kind: 'delete', path: 'codex-style', patchLine: 2, hunks: [] },
        {
          kind: 'delete',
          path: 'diff-style',
          patchLine: 5,
          hunks: [hunk('-a|-b|-c')],
          modeBefore: '100644',
        },
      ],
    }
    expect(summarizePlan(plan)).toEqual([
      { path: 'codex-style', op: 'delete', additions: 0, deletions: null },
      { path: 'diff-style', op: 'delete', additions: 0, deletions: 3, modeBefore: '100644' },
    ])
  })

  it('reports a move at its destination with its source and mode change', () => {
    const plan: EditPlan = {
      format: 'unified',
      ops: [
        {
          kind: 'update',
          path: 'old.sh',
          moveTo: 'new.sh',
          patchLine: 1,
          hunks: [],
          locate: NEAR,
          modeBefore: '100644',
          modeAfter: '100755',
        },
      ],
    }
    expect(summarizePlan(plan)).toEqual([
      {
        path: 'new.sh',
        op: 'move',
        from: 'old.sh',
        additions: 0,
        deletions: 0,
        modeBefore: '100644',
        modeAfter: '100755',
      },
    ])
  })

  it('reports a copy with its source', () => {
    const plan: EditPlan = {
      format: 'unified',
      ops: [
        { kind: 'copy', from: 'a', path: 'b', patchLine: 1, hunks: [hunk(' k|+n')], locate: NEAR },
      ],
    }
    expect(summarizePlan(plan)).toEqual([
      { path: 'b', op: 'copy', from: 'a', additions: 1, deletions: 0 },
    ])
  })

  it('marks binary patches and leaves their counts unknown', () => {
    const plan: EditPlan = {
      format: 'unified',
      ops: [
        { kind: 'add', path: 'i.png', patchLine: 1, content: '', binary: BINARY, overwrite: false },
        { kind: 'update', path: 'j.png', patchLine: 9, hunks: [], locate: NEAR, binary: BINARY },
        { kind: 'delete', path: 'k.png', patchLine: 20, hunks: [], binary: BINARY },
        {
          kind: 'copy',
          from: 'j.png',
          path: 'l.png',
          patchLine: 30,
          hunks: [],
          locate: NEAR,
          binary: BINARY,
        },
      ],
    }
    expect(summarizePlan(plan)).toEqual([
      { path: 'i.png', op: 'add', additions: null, deletions: null, binary: true },
      { path: 'j.png', op: 'update', additions: null, deletions: null, binary: true },
      { path: 'k.png', op: 'delete', additions: null, deletions: null, binary: true },
      { path: 'l.png', op: 'copy', from: 'j.png', additions: null, deletions: null, binary: true },
    ])
  })

  it('leaves JSON edit counts unknown, since they depend on the file', () => {
    const plan: EditPlan = {
      format: 'edits',
      ops: [
        {
          kind: 'edits',
          path: 'e.ts',
          patchLine: 1,
          edits: [{ mode: 'replace', index: 0, oldString: 'a', newString: 'b', replaceAll: false }],
        },
      ],
    }
    expect(summarizePlan(plan)).toEqual([
      { path: 'e.ts', op: 'update', additions: null, deletions: null },
    ])
  })

  it('returns plain data that survives structuredClone', () => {
    const plan: EditPlan = {
      format: 'codex',
      ops: [
        {
          kind: 'update',
          path: 'a',
          moveTo: 'b',
          patchLine: 1,
          hunks: [hunk('-a|+b')],
          locate: 'cursor',
        },
      ],
    }
    const summary = summarizePlan(plan)
    expect(structuredClone(summary)).toEqual(summary)
  })
})
