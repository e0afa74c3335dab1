// The patch is bytes: random bytes in the added line of a patch in each format, against a
// file of random segments (invalid UTF-8, Latin-1 and NUL included) around byte-exact ASCII
// context. The line must land with exactly the patch's bytes, never a U+FFFD in their place, and
// a JSON edit list that is not UTF-8 must be refused with PARSE_BAD_ENCODING, writing nothing.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine/engine.js'
import type { Engine } from '../../src/engine/api.js'
import { isEditError } from '../../src/errors.js'
import type { PatchFormat } from '../../src/types.js'
import { fuzzRuns } from '../helpers/test-mode.js'
import { makeTempDir } from '../helpers/tree.js'
import { FORMATS } from './arbitraries.js'

const RUNS_PER_FORMAT = fuzzRuns(40)
const TIMEOUT_MS = 60_000
const FILE = 'data.txt'
const BEFORE_LINE = 'QQ before context QQ'
const TARGET_LINE = 'QQ target line QQ'
const AFTER_LINE = 'QQ after context QQ'

const enc = new TextEncoder()
const utf8Strict = new TextDecoder('utf-8', { fatal: true })

/** Bytes for a line: anything but LF, CR and 'Q' (which keeps the known lines unique). */
const lineBytesArb = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0x20, max: 0x7e }),
      fc.integer({ min: 0x80, max: 0xff }),
      fc.constantFrom(0x00, 0x09),
    ),
    { minLength: 1, maxLength: 24 },
  )
  .map((xs) => Uint8Array.from(xs.filter((x) => x !== 0x51)))
  .filter((b) => b.length > 0 && b[0] !== 0x20 && b[0] !== 0x09)

const fileSegmentArb = fc.constantFrom(
  Uint8Array.from([0xe9, 0x0a]), // a Latin-1 line
  Uint8Array.from([0xc3, 0xa9, 0x0a]), // a UTF-8 line
  Uint8Array.from([0xff, 0x00, 0x0a]), // invalid UTF-8 and NUL
  enc.encode('plain\n'),
)

function concat(parts: readonly Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts))
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    utf8Strict.decode(bytes)
    return true
  } catch {
    return false
  }
}

/** The patch as bytes: ASCII around `added`, which goes in exactly as given. */
function patchFor(format: PatchFormat, startLine: number, added: Uint8Array): Uint8Array {
  const text = (lines: string[]) => enc.encode(lines.join('\n'))
  switch (format) {
    case 'codex':
      return concat([
        text(['*** Begin Patch', `*** Update File: ${FILE}`, '@@', ` ${BEFORE_LINE}`]),
        enc.encode(`\n-${TARGET_LINE}\n+`),
        added,
        text(['', ` ${AFTER_LINE}`, '*** End Patch', '']),
      ])
    case 'unified':
      return concat([
        text([`--- a/${FILE}`, `+++ b/${FILE}`, `@@ -${startLine},3 +${startLine},3 @@`]),
        enc.encode(`\n ${BEFORE_LINE}\n-${TARGET_LINE}\n+`),
        added,
        text(['', ` ${AFTER_LINE}`, '']),
      ])
    case 'search-replace':
      return concat([
        text([FILE, '<<<<<<< SEARCH', TARGET_LINE, '=======', '']),
        added,
        text(['', '>>>>>>> REPLACE', '']),
      ])
    case 'edits':
      // JSON-escape only what JSON requires, so the line's bytes stay raw in the JSON text.
      return concat([
        enc.encode(`{"edits":[{"path":"${FILE}","old_string":"${TARGET_LINE}","new_string":"`),
        Uint8Array.from(
          Array.from(added).flatMap((x) =>
            x < 0x20
              ? [...enc.encode(`\\u00${x.toString(16).padStart(2, '0')}`)]
              : x === 0x22 || x === 0x5c
                ? [0x5c, x]
                : [x],
          ),
        ),
        enc.encode('"}]}'),
      ])
  }
}

let base = ''
let root = ''
let engine: Engine | undefined

beforeAll(async () => {
  base = await makeTempDir('patchloom-fuzz-patch-bytes-')
  root = join(base, 'root')
  await mkdir(root)
  engine = createEngine({ root, workers: false })
})

afterAll(async () => {
  await engine?.close()
  if (base !== '') await rm(base, { recursive: true, force: true })
})

describe('random bytes in a patch are written exactly or refused', () => {
  for (const [n, format] of FORMATS.entries()) {
    it(
      `${format}: the added line keeps the patch's bytes`,
      async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.array(fileSegmentArb, { maxLength: 4 }),
            lineBytesArb,
            async (prefix, added) => {
              const head = concat([...prefix, enc.encode(`${BEFORE_LINE}\n`)])
              const tail = enc.encode(`${AFTER_LINE}\n`)
              const original = concat([head, enc.encode(`${TARGET_LINE}\n`), tail])
              await writeFile(join(root, FILE), original)
              const patch = patchFor(format, prefix.length + 1, added)
              const want = concat([head, added, enc.encode('\n'), tail])
              if (format === 'edits' && !isUtf8(added)) {
                const error = await (engine as Engine).apply(patch, { format }).then(
                  () => null,
                  (e: unknown) => e,
                )
                expect(isEditError(error) && error.code).toBe('PARSE_BAD_ENCODING')
                expect(Buffer.from(await readFile(join(root, FILE)))).toEqual(Buffer.from(original))
                return
              }
              await (engine as Engine).apply(patch, { format })
              expect(Buffer.from(await readFile(join(root, FILE)))).toEqual(Buffer.from(want))
            },
          ),
          { seed: 0x8b7e5 + n, numRuns: RUNS_PER_FORMAT },
        )
      },
      TIMEOUT_MS,
    )
  }
})
