// Shared by the replay tree tests: tree entries from text, the ApplyContext the replay
// gives applyPlan, and a unified diff parsed into a plan. No vitest imports.
import { inflateSync } from 'node:zlib'
import { parsePlan } from '../../src/parse/index.js'
import type { TreeFile } from '../../src/replay/tree.js'
import { gitBlobId } from '../../src/text/blob-id.js'
import type { EditPlan } from '../../src/types.js'

export const text = (s: string): Uint8Array => new TextEncoder().encode(s)

/** A tree entry holding `s`, with its real blob id. */
export const file = (s: string, mode = '100644'): TreeFile => ({
  mode,
  id: gitBlobId(text(s)),
  bytes: text(s),
})

export const ctx = {
  gitBlobId,
  inflate: (d: Uint8Array) => new Uint8Array(inflateSync(d)),
}

export function plan(diff: string): EditPlan {
  const parsed = parsePlan(diff, 'unified')
  if (!parsed.ok) throw new Error(parsed.error.message)
  return parsed.value
}
