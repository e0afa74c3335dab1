// Random files and string-edit requests for the property tests
// (test/unit/apply/string-edits-oracle.test.ts, test/unit/apply/apply-hunks-oracle.test.ts).
// Files are built from a few tokens so strings repeat (ambiguity, replace_all), mix CRLF and LF,
// hold lone CRs, curly quotes, tabs and odd spaces (every ladder pass, re-indentation), and may
// lack a final newline. Edits are cut from the file's own text and then often distorted
// (re-indented, CRLF, curly quotes, trailing blanks), so some match exactly, some only leniently,
// and some not at all.
import fc from 'fast-check'
import type { StringEdit } from '../../src/types.js'

export const TOKENS = [
  'a',
  'b',
  'ab',
  ' ',
  '  ',
  '\t',
  'x = 1',
  '“q”',
  '"q"',
  '-',
  '—',
  '\u00a0',
  '\r',
  '}',
]
const lineText = fc.array(fc.constantFrom(...TOKENS), { maxLength: 3 }).map((t) => t.join(''))
const eol = fc.constantFrom('\n', '\n', '\r\n')
export const fileText = fc
  .tuple(fc.array(fc.tuple(lineText, eol), { maxLength: 14 }), fc.boolean())
  .map(([lines, final]) => {
    const text = lines.map(([t, e]) => t + e).join('')
    return final ? text : text.replace(/\r?\n$/, '')
  })

/** How a cut of the file is changed before it is sent, so lenient passes get exercised. */
export type Distortion =
  'none' | 'crlf' | 'lf' | 'indent' | 'trim' | 'curly' | 'trailing' | 'garble' | 'spaces'
export const distortion = fc.constantFrom<Distortion>(
  'none',
  'none',
  'none',
  'crlf',
  'lf',
  'indent',
  'trim',
  'curly',
  'trailing',
  'garble',
  'spaces',
)

export function distort(text: string, how: Distortion): string {
  switch (how) {
    case 'none':
      return text
    case 'crlf':
      return text.replace(/\r?\n/g, '\r\n')
    case 'lf':
      return text.replace(/\r\n/g, '\n')
    case 'indent':
      return text.replace(/^/gm, '  ')
    case 'trim':
      return text.replace(/^[ \t]+/gm, '')
    case 'curly':
      return text.replace(/"/g, '“')
    case 'trailing':
      return text.replace(/\n/g, '  \n')
    case 'garble':
      return text.replace(/a/g, 'z')
    case 'spaces':
      // Leading tabs as four spaces: what tolerant_whitespace forgives.
      return text.replace(/^\t+/gm, (tabs) => '    '.repeat(tabs.length))
  }
}

export const newText = fc
  .array(fc.constantFrom('n', 'a', '  n', '\t"q"', '\n', '\r\n', '“q”', '\r', ''), { maxLength: 5 })
  .map((t) => t.join(''))

/** An edit drawn against the file: `cut` numbers pick a slice of the file's text. */
export type EditSpec =
  | {
      mode: 'replace'
      at: number
      length: number
      how: Distortion
      newString: string
      replaceAll: boolean
      expect: number | null
      /** occurrence, used when neither replaceAll nor expect is. */
      occurrence: number | null
      strict: boolean
      tolerant: boolean
    }
  | {
      mode: 'insert'
      at: number
      length: number
      how: Distortion
      before: boolean
      newString: string
      occurrence: number | null
      strict: boolean
      tolerant: boolean
    }
  | { mode: 'range'; start: number; count: number; newString: string | null }
  | { mode: 'atLine'; after: number; newString: string }
  | { mode: 'write'; content: string }
  | { mode: 'literal'; oldString: string; newString: string }

/**
 * The matching fields (occurrence, strict, tolerant_whitespace), each set now and then so the plain
 * edits stay the common case.
 */
const matchingModes = {
  occurrence: fc.option(fc.constantFrom(1, 2, 3, -1, -2, -3), { freq: 3 }),
  strict: fc.boolean(),
  tolerant: fc.boolean(),
}

export const editSpec: fc.Arbitrary<EditSpec> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      mode: fc.constant('replace' as const),
      at: fc.nat(),
      length: fc.integer({ min: 1, max: 24 }),
      how: distortion,
      newString: newText,
      replaceAll: fc.boolean(),
      expect: fc.option(fc.integer({ min: 0, max: 4 })),
      ...matchingModes,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      mode: fc.constant('insert' as const),
      at: fc.nat(),
      length: fc.integer({ min: 1, max: 16 }),
      how: distortion,
      before: fc.boolean(),
      newString: newText,
      ...matchingModes,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      mode: fc.constant('range' as const),
      start: fc.integer({ min: 0, max: 16 }),
      count: fc.integer({ min: 0, max: 4 }),
      newString: fc.option(newText),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      mode: fc.constant('atLine' as const),
      after: fc.integer({ min: 0, max: 16 }),
      newString: newText,
    }),
  },
  { weight: 1, arbitrary: fc.record({ mode: fc.constant('write' as const), content: fileText }) },
  {
    weight: 2,
    arbitrary: fc.record({
      mode: fc.constant('literal' as const),
      oldString: fc.constantFrom('a', 'ab', '\n', 'a\n', '\na', '}\n', '"q"', ' \n', '\r', 'x = 1'),
      newString: newText,
    }),
  },
)

function modeFields(
  spec: { occurrence: number | null; strict: boolean; tolerant: boolean },
  occurrenceAllowed: boolean,
): { occurrence?: number; strict?: boolean; tolerantWhitespace?: boolean } {
  return {
    ...(occurrenceAllowed && spec.occurrence !== null ? { occurrence: spec.occurrence } : {}),
    ...(spec.strict ? { strict: true } : {}),
    ...(spec.tolerant ? { tolerantWhitespace: true } : {}),
  }
}

export function cut(text: string, at: number, length: number): string {
  if (text === '') return 'a'
  const start = at % text.length
  return text.slice(start, start + length)
}

/** Realises specs against the file as it was read (later edits may no longer match: fine). */
export function realise(text: string, specs: readonly EditSpec[]): StringEdit[] {
  return specs.map((spec, index): StringEdit => {
    switch (spec.mode) {
      case 'replace':
        return {
          mode: 'replace',
          index,
          oldString: distort(cut(text, spec.at, spec.length), spec.how),
          newString: spec.newString,
          replaceAll: spec.replaceAll && spec.expect === null,
          ...(spec.expect === null ? {} : { expectedMatches: spec.expect }),
          ...modeFields(spec, !spec.replaceAll && spec.expect === null),
        }
      case 'insert':
        return {
          mode: 'insert',
          index,
          anchor: distort(cut(text, spec.at, spec.length), spec.how),
          position: spec.before ? 'before' : 'after',
          newString: spec.newString,
          ...modeFields(spec, true),
        }
      case 'range':
        return spec.newString === null
          ? { mode: 'delete_range', index, startLine: spec.start, endLine: spec.start + spec.count }
          : {
              mode: 'replace_range',
              index,
              startLine: spec.start,
              endLine: spec.start + spec.count,
              newString: spec.newString,
            }
      case 'atLine':
        return { mode: 'insert_line', index, afterLine: spec.after, newString: spec.newString }
      case 'write':
        return { mode: 'write', index, content: spec.content }
      case 'literal':
        return {
          mode: 'replace',
          index,
          oldString: spec.oldString,
          newString: spec.newString,
          replaceAll: true,
        }
    }
  })
}
