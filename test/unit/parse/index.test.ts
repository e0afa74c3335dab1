import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { detectFormat, parsePlan } from '../../../src/parse/index.js'

const CODEX = '*** Begin Patch\n*** Add File: a.txt\n+hello\n*** End Patch\n'
const UNIFIED = 'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+y\n'
const TRADITIONAL = '--- a.txt\t2024-01-01\n+++ a.txt\t2024-01-02\n@@ -1 +1 @@\n-x\n+y\n'
const SR = 'a.txt\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n'
const EDITS = '{"edits":[{"path":"a.txt","old_string":"x","new_string":"y"}]}'

describe('detectFormat', () => {
  it('detects JSON edits from a leading { or [', () => {
    expect(detectFormat(EDITS)).toBe('edits')
    expect(detectFormat('  \n[{"path":"a","mode":"write","content":""}]')).toBe('edits')
    expect(detectFormat('{ not even json')).toBe('edits')
  })

  it('detects a Codex patch, padded or wrapped in a heredoc', () => {
    expect(detectFormat(CODEX)).toBe('codex')
    expect(detectFormat(`apply_patch <<'EOF'\n  *** Begin Patch  \n*** End Patch\nEOF\n`)).toBe(
      'codex',
    )
    expect(detectFormat(CODEX.replaceAll('\n', '\r\n'))).toBe('codex')
  })

  it('detects SEARCH/REPLACE blocks inside prose', () => {
    expect(detectFormat(`Sure! Here you go:\n\n${SR}`)).toBe('search-replace')
    expect(detectFormat('f\n<<<<< SEARCH\n')).toBe('search-replace')
  })

  it('detects unified diffs by diff --git, ---/+++ pairs or GIT binary patch', () => {
    expect(detectFormat(UNIFIED)).toBe('unified')
    expect(detectFormat(TRADITIONAL)).toBe('unified')
    expect(detectFormat(TRADITIONAL.replaceAll('\n', '\r\n'))).toBe('unified')
    expect(detectFormat('junk\nGIT binary patch\nliteral 0\n')).toBe('unified')
  })

  it('does not take a lone --- line for a diff', () => {
    expect(detectFormat('title\n--- \nnot a diff\n')).toBeNull()
  })

  it('prefers Codex over SEARCH/REPLACE and diffs, and SEARCH/REPLACE over diffs', () => {
    expect(detectFormat(`${UNIFIED}${SR}`)).toBe('search-replace')
    expect(detectFormat(`${SR}${CODEX}`)).toBe('codex')
    expect(detectFormat(`${UNIFIED}${CODEX}`)).toBe('codex')
  })

  it('returns null for anything else', () => {
    expect(detectFormat('')).toBeNull()
    expect(detectFormat('hello world\n')).toBeNull()
    expect(detectFormat('*** Begin Patchwork\n')).toBeNull()
  })
})

describe('parsePlan', () => {
  it.each([
    [CODEX, 'codex'],
    [UNIFIED, 'unified'],
    [SR, 'search-replace'],
    [EDITS, 'edits'],
  ])('dispatches detected input to its parser (%#)', (text, format) => {
    const result = parsePlan(text)
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`)
    expect(result.value.format).toBe(format)
    expect(result.value.ops[0]?.path).toBe('a.txt')
  })

  it('uses the named format instead of detecting one', () => {
    // JSON-looking text named as search-replace is parsed as search-replace, and fails as such.
    const result = parsePlan('{"edits":[]}', 'search-replace')
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.error.code).toBe('PARSE_EMPTY_HUNK')
    const sr = parsePlan(SR, 'search-replace')
    expect(sr.ok && sr.value.format).toBe('search-replace')
  })

  it('returns the named parser’s error for input in another format', () => {
    const result = parsePlan(SR, 'edits')
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.error.code).toBe('PARSE_BAD_EDIT')
  })

  it('refuses undetectable input with PARSE_UNKNOWN_FORMAT', () => {
    const result = parsePlan('please change the greeting to hi\n')
    expect(result).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'PARSE_UNKNOWN_FORMAT', retryable: false }),
    })
  })
})

describe('detectFormat on unified markers (substring search)', () => {
  // The line-splitting detector it replaced, kept as the oracle.
  function looksUnifiedBySplitting(text: string): boolean {
    const lines = text.split(/\r?\n/)
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as string
      if (line.startsWith('diff --git ') || line.startsWith('GIT binary patch')) return true
      if (line.startsWith('--- ') && (lines[i + 1] ?? '').startsWith('+++ ')) return true
    }
    return false
  }

  it('finds a unified diff exactly where splitting into lines did', () => {
    const piece = fc.constantFrom(
      'diff --git a/x b/x',
      'GIT binary patch',
      '--- a/x',
      '+++ b/x',
      ' --- a/x',
      'x--- ',
      '--- ',
      '+++ ',
      'text',
      '',
    )
    const sep = fc.constantFrom('\n', '\r\n', '\r', ' ')
    fc.assert(
      fc.property(fc.array(fc.tuple(piece, sep), { maxLength: 8 }), (parts) => {
        const text = parts.map(([p, s]) => p + s).join('')
        expect(detectFormat(text) === 'unified').toBe(looksUnifiedBySplitting(text))
      }),
      { numRuns: 3000, seed: 9 },
    )
  })
})
