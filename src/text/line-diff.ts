// The line diff that SEARCH/REPLACE blocks (src/parse/search-replace.ts) and string edits
// (src/apply/edit-splice.ts) pair kept lines with, in both of its tie-breaks: 'first' pairs a
// line repeated on both sides with its first copy (jsdiff's own choice), 'last' with its last
// copy (the diff of both sides reversed, turned back). Two pairings of one edit that keep
// different lines are what D-150 refuses after a lenient match.
// Only the array differ: importing 'diff' whole loads every module of jsdiff (~20 ms at startup).
import { diffArrays } from 'diff/lib/diff/array.js'

/** A run of lines both sides share, or that only the old (removed) or the new (added) side has. */
export interface LineChange {
  readonly value: readonly string[]
  readonly added?: boolean
  readonly removed?: boolean
}

/**
 * The changes turning `oldLines` into `newLines`, in order, ties broken as `ties` says; undefined
 * when the diff needs more than `maxEditLength` edits (jsdiff's bound on its cost).
 */
export function lineChanges(
  oldLines: readonly string[],
  newLines: readonly string[],
  ties: 'first' | 'last' = 'first',
  maxEditLength?: number,
): LineChange[] | undefined {
  const diff = (a: string[], b: string[]): LineChange[] | undefined =>
    maxEditLength === undefined ? diffArrays(a, b) : diffArrays(a, b, { maxEditLength })
  if (ties === 'first') return diff([...oldLines], [...newLines])
  const reversed = diff([...oldLines].reverse(), [...newLines].reverse())
  return reversed?.reverse().map((c) => ({ ...c, value: [...c.value].reverse() }))
}
