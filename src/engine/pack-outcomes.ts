// The outcomes of a verify job made ready to leave the thread that computed them
// (verify-job.ts): every op stripped of what only verification reads, and in a worker every byte
// array the outcomes hold copied into one ArrayBuffer, so the reply clones one buffer instead of
// thousands of small arrays.
import type { FileOp } from '../types.js'
import type { PreparedPath } from './prepare.js'
import type { OpOutcome } from './verify.js'

/**
 * The outcomes with every byte array they hold (new contents, kept old contents) copied into one
 * ArrayBuffer: a worker transfers that buffer instead of cloning thousands of arrays. With
 * `copyBytes` false (outcomes that stay in this thread) the arrays are kept as they are; either
 * way no op keeps its body (withoutBody).
 */
export function packOutcomes(
  outcomes: readonly OpOutcome[],
  copyBytes = true,
): {
  outcomes: OpOutcome[]
  buffer: ArrayBuffer
} {
  let total = 0
  const each = (o: OpOutcome, visit: (bytes: Uint8Array) => Uint8Array): OpOutcome => {
    if (!o.ok) {
      if (o.resolved === undefined) return o
      return { ...o, resolved: { ...o.resolved, op: withoutBody(o.resolved.op) } }
    }
    const { computed } = o.verified
    const prepared = { ...o.verified.prepared, op: withoutBody(o.verified.prepared.op) }
    const path = (p: PreparedPath): PreparedPath =>
      p.snap.bytes === null ? p : { ...p, snap: { ...p.snap, bytes: visit(p.snap.bytes) } }
    return {
      ok: true,
      verified: {
        ...o.verified,
        prepared: {
          ...prepared,
          target: path(prepared.target),
          ...(prepared.moveTo === undefined ? {} : { moveTo: path(prepared.moveTo) }),
          ...(prepared.from === undefined ? {} : { from: path(prepared.from) }),
        },
        computed:
          computed.after === null ? computed : { ...computed, after: visit(computed.after) },
      },
    }
  }
  if (!copyBytes)
    return { outcomes: outcomes.map((o) => each(o, (bytes) => bytes)), buffer: NO_BYTES }
  for (const o of outcomes) {
    if (!o.ok) continue
    const { prepared, computed } = o.verified
    for (const p of [prepared.target, prepared.moveTo, prepared.from])
      total += p?.snap.bytes?.length ?? 0
    total += computed.after?.length ?? 0
  }
  const buffer = new ArrayBuffer(total)
  let offset = 0
  const packed = outcomes.map((o) =>
    each(o, (bytes) => {
      const view = new Uint8Array(buffer, offset, bytes.length)
      view.set(bytes)
      offset += bytes.length
      return view
    }),
  )
  return { outcomes: packed, buffer }
}

const NO_BYTES = new ArrayBuffer(0)

/**
 * The op without what only verification reads (hunks, added content, binary data, edits): what
 * follows it (results, commit steps) reads its kind, paths, modes and patch line.
 */
function withoutBody(op: FileOp): FileOp {
  switch (op.kind) {
    case 'add': {
      const { binary: _binary, ...rest } = op
      return { ...rest, content: '' }
    }
    case 'update': {
      const { binary: _binary, packed: _packed, ...rest } = op
      return { ...rest, hunks: [] }
    }
    case 'delete':
    case 'copy': {
      const { binary: _binary, ...rest } = op
      return { ...rest, hunks: [] }
    }
    case 'edits':
      return { ...op, edits: [] }
  }
}
