// Byte preservation under random file contents: a file of random segments
// (CRLF, lone CR, BOMs, invalid UTF-8, Latin-1 and NUL bytes) around three known ASCII lines; a
// patch in each format changes the middle one with byte-exact context, so it applies in 'utf8'
// and in 'bytes' mode alike. Every byte before and after the changed line must be kept. Only LF
// and CRLF end lines, and a lone CR is content, except under a Codex patch, whose line model also
// ends lines at a lone CR and gives a new line the file's first ending.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine/engine.js'
import type { Engine } from '../../src/engine/api.js'
import type { PatchFormat } from '../../src/types.js'
import { makeTempDir } from '../helpers/tree.js'
import { FORMATS } from './arbitraries.js'
import { fuzzRuns } from '../helpers/test-mode.js'

const RUNS_PER_FORMAT = fuzzRuns(300)
const TIMEOUT_MS = 60_000
const FILE = 'data.txt'

// The known lines use 'Q', which the random segments never contain, so each is unique.
const BEFORE_LINE = 'QQ before context QQ'
const TARGET_LINE = 'QQ target line QQ'
const AFTER_LINE = 'QQ after context QQ'
const NEW_LINE = 'QQ replaced line QQ'

const enc = new TextEncoder()
const bytesOf = (...codes: number[]) => Uint8Array.from(codes)

const segmentArb: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc
    .constantFrom('alpha', 'beta x', '  indented', '', '{', '}', 'tab\tbed')
    .map((s) => enc.encode(s)),
  fc.constantFrom(
    bytesOf(0x0d, 0x0a), // CRLF
    bytesOf(0x0d), // lone CR
    bytesOf(0x0a),
    bytesOf(0x00), // NUL
    bytesOf(0xef, 0xbb, 0xbf), // a BOM in mid-file
    bytesOf(0xff), // never valid UTF-8
    bytesOf(0xc3), // truncated sequence
    bytesOf(0xed, 0xa0, 0x80), // encoded surrogate
    bytesOf(0xe9), // Latin-1 'é'
    bytesOf(0xc3, 0xa9), // UTF-8 'é'
    bytesOf(0xf0, 0x9f, 0x98, 0x80), // UTF-8 emoji
  ),
  fc.uint8Array({ maxLength: 6 }).map((b) => b.filter((x) => x !== 0x51)),
)

const eolArb = fc.constantFrom('\n', '\r\n')

const contentArb = fc.record({
  bom: fc.boolean(),
  prefix: fc.array(segmentArb, { maxLength: 12 }),
  suffix: fc.array(segmentArb, { maxLength: 12 }),
  eolBefore: eolArb,
  eolTarget: eolArb,
  eolAfter: fc.constantFrom('\n', '\r\n', ''),
})

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

function patchFor(format: PatchFormat, startLine: number): string {
  switch (format) {
    case 'codex':
      return [
        '*** Begin Patch',
        `*** Update File: ${FILE}`,
        '@@',
        ` ${BEFORE_LINE}`,
        `-${TARGET_LINE}`,
        `+${NEW_LINE}`,
        ` ${AFTER_LINE}`,
        '*** End Patch',
        '',
      ].join('\n')
    case 'unified':
      return [
        `--- a/${FILE}`,
        `+++ b/${FILE}`,
        `@@ -${startLine},3 +${startLine},3 @@`,
        ` ${BEFORE_LINE}`,
        `-${TARGET_LINE}`,
        `+${NEW_LINE}`,
        ` ${AFTER_LINE}`,
        '',
      ].join('\n')
    case 'search-replace':
      return [FILE, '<<<<<<< SEARCH', TARGET_LINE, '=======', NEW_LINE, '>>>>>>> REPLACE', ''].join(
        '\n',
      )
    case 'edits':
      return JSON.stringify({
        edits: [{ path: FILE, old_string: TARGET_LINE, new_string: NEW_LINE }],
      })
  }
}

function countLines(bytes: Uint8Array): number {
  let n = 0
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0a) n++
  }
  return n
}

/**
 * The ending a Codex patch gives a new line in a file holding a lone CR: the first one the file
 * uses ('\r' among them); null for a file without a lone CR (the dominant ending, LF or CRLF).
 */
function codexNewLineEnding(bytes: Uint8Array): string | null {
  let first: string | null = null
  let lone = false
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0a) first ??= '\n'
    else if (bytes[i] === 0x0d) {
      const crlf = bytes[i + 1] === 0x0a
      first ??= crlf ? '\r\n' : '\r'
      if (crlf) i++
      else lone = true
    }
  }
  return lone ? first : null
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i])
}

let base = ''
let root = ''
let engine: Engine | undefined

beforeAll(async () => {
  base = await makeTempDir('patchloom-fuzz-bytes-')
  root = join(base, 'root')
  await mkdir(root)
  engine = createEngine({ root, workers: false })
})

afterAll(async () => {
  await engine?.close()
  if (base !== '') await rm(base, { recursive: true, force: true })
})

describe('untouched bytes under random file contents', () => {
  for (const [n, format] of FORMATS.entries()) {
    it(
      `keeps every byte around a line changed by a ${format} patch`,
      async () => {
        await fc.assert(
          fc.asyncProperty(contentArb, async (c) => {
            // The prefix ends with LF so the known lines start lines of their own.
            const head = concat([
              c.bom ? bytesOf(0xef, 0xbb, 0xbf) : new Uint8Array(),
              ...c.prefix,
              bytesOf(0x0a),
              enc.encode(BEFORE_LINE + c.eolBefore),
            ])
            // Without a final newline the after line must be the last one.
            const suffix = c.eolAfter === '' ? [] : c.suffix
            const tail = concat([enc.encode(AFTER_LINE + c.eolAfter), ...suffix])
            const original = concat([head, enc.encode(TARGET_LINE + c.eolTarget), tail])
            await writeFile(join(root, FILE), original)
            const patch = patchFor(format, countLines(head))
            await (engine as Engine).apply(patch, { format })
            const out = new Uint8Array(await readFile(join(root, FILE)))
            expect(sameBytes(out.subarray(0, head.length), head), 'bytes before the line').toBe(
              true,
            )
            // The rule: a missing final newline stays missing unless the change reaches
            // the last line; Codex then ends the file with one, and a unified hunk without
            // `\ No newline` says its last line has one. Either way only that newline may appear.
            // That newline takes the file's dominant ending, like any inserted line.
            const first = format === 'codex' ? codexNewLineEnding(original) : null
            const endings = first === null ? ['\n', '\r\n'] : [first]
            const grown =
              c.eolAfter === '' && (format === 'codex' || format === 'unified')
                ? endings.map((eol) => concat([tail, enc.encode(eol)]))
                : []
            const end = grown.find((g) => sameBytes(out.subarray(out.length - g.length), g)) ?? tail
            expect(sameBytes(out.subarray(out.length - end.length), end), 'bytes after').toBe(true)
            const middle = new TextDecoder().decode(
              out.subarray(head.length, out.length - end.length),
            )
            expect(endings.map((eol) => NEW_LINE + eol)).toContain(middle)
          }),
          { seed: 0xb17e5 + n, numRuns: RUNS_PER_FORMAT },
        )
      },
      TIMEOUT_MS,
    )
  }
})
