// Warning codes are public API (D-107): every code src/ emits is in WARNING_CODES (or is a
// journal refusal's, derived from its error code), and every listed code is emitted somewhere.
import { readdirSync, readFileSync } from 'node:fs'
import { posix } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { ERROR_CODES, type ErrorCode } from '../../src/errors.js'
import {
  journalNoticeCode,
  WARNING_CODES,
  type JournalNoticeCode,
  type WarningCode,
} from '../../src/warnings.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

function sources(dir: string): string[] {
  return readdirSync(posix.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = posix.join(dir, e.name)
    if (e.isDirectory()) return sources(rel)
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [rel] : []
  })
}

const SOURCES = [...sources('src'), ...sources('workers')]
  .filter((file) => file !== 'src/warnings.ts')
  .map((file) => ({ file, text: readFileSync(posix.join(ROOT, file), 'utf8') }))

/** Every dotted `code: 'area.name'` literal in src/ and workers/: the warnings the code emits. */
function emittedCodes(): Map<string, string[]> {
  const found = new Map<string, string[]>()
  for (const { file, text } of SOURCES) {
    for (const m of text.matchAll(/\bcode: '([a-z]+\.[a-z-]+)'/g)) {
      const code = m[1] ?? ''
      found.set(code, [...(found.get(code) ?? []), file])
    }
  }
  return found
}

describe('WARNING_CODES', () => {
  const emitted = emittedCodes()

  it('lists every warning code src/ emits', () => {
    const unlisted = [...emitted.keys()].filter((code) => !Object.hasOwn(WARNING_CODES, code))
    expect(unlisted.map((code) => `${code} (${emitted.get(code)?.join(', ')})`)).toEqual([])
  })

  it('lists no code that nothing emits', () => {
    // Looser than the search above: 'journal.conflict' is chosen in a conditional expression.
    const named = (code: string) => SOURCES.some(({ text }) => text.includes(`'${code}'`))
    expect(Object.keys(WARNING_CODES).filter((code) => !named(code))).toEqual([])
  })

  it('names a journal refusal after its error code, apart from every fixed code', () => {
    expect(journalNoticeCode('JOURNAL_UNSAFE_PATH')).toBe('journal.unsafe-path')
    expect(journalNoticeCode('JOURNAL_UNTRUSTED')).toBe('journal.untrusted')
    expect(journalNoticeCode('FILE_CHANGED')).toBe('journal.file-changed')
    const derived = (Object.keys(ERROR_CODES) as ErrorCode[]).map(journalNoticeCode)
    expect(derived.filter((code) => Object.hasOwn(WARNING_CODES, code))).toEqual([])
    expect(derived.every((code) => /^journal\.[a-z]+(-[a-z]+)*$/.test(code))).toBe(true)
  })

  it('types the codes as one union', () => {
    expectTypeOf(journalNoticeCode).returns.toEqualTypeOf<JournalNoticeCode>()
    expectTypeOf<'journal.no-space'>().toMatchTypeOf<WarningCode>()
    expectTypeOf<'lsp.failed'>().toMatchTypeOf<WarningCode>()
    expectTypeOf<'journal.whatever'>().not.toMatchTypeOf<WarningCode>()
  })
})
