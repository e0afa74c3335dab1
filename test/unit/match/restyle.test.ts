import { describe, expect, it } from 'vitest'
import {
  deriveRestyle,
  IDENTITY_RESTYLE,
  isIdentityRestyle,
  restyleLine,
} from '../../../src/match/restyle.js'

describe('deriveRestyle', () => {
  it('is the identity for exact and trim-end matches', () => {
    expect(deriveRestyle(['    a'], ['a'], 'exact')).toBe(IDENTITY_RESTYLE)
    expect(deriveRestyle(['a  '], ['a'], 'trim-end')).toBe(IDENTITY_RESTYLE)
    expect(isIdentityRestyle(IDENTITY_RESTYLE)).toBe(true)
  })

  it('learns an indentation mapping from the matched pairs under trim', () => {
    const restyle = deriveRestyle(['', '        foo()', '  bar'], ['', '    foo()', 'bar'], 'trim')
    expect(restyle.indent).toMatchObject({ refColumns: 4, refFile: '        ' })
    expect(restyleLine('    baz()', restyle)).toBe('        baz()')
    expect(restyle.curlyDouble).toBe(false)
  })

  it('leaves indentation alone when every matched line was indented as in the file', () => {
    const restyle = deriveRestyle(['  say \u201chi\u201d'], ['  say "hi"'], 'fold')
    expect(restyle.indent).toBeNull()
    expect(restyleLine('    deeper "x"', restyle)).toBe('    deeper \u201cx\u201d')
  })

  it('learns curly double and single quotes under fold', () => {
    const restyle = deriveRestyle(
      ['print(\u201chello\u201d)', 'it\u2019s'],
      ['print("hello")', "it's"],
      'fold',
    )
    expect(restyle.curlyDouble).toBe(true)
    expect(restyle.curlySingle).toBe(true)
  })

  it('keeps ASCII quotes when the file mostly uses them too', () => {
    const restyle = deriveRestyle(
      ['a = "x" + "y" + \u201cz\u201d'],
      ['a = "x" + "y" + "z"'],
      'fold',
    )
    expect(restyle.curlyDouble).toBe(false)
  })

  it('records only the dashed tokens the file spelled with a Unicode dash', () => {
    const restyle = deriveRestyle(
      ['pages 10\u201320 - see note'],
      ['pages 10-20 - see note'],
      'fold',
    )
    expect(restyle.dashTokens).toEqual([['10-20', '10\u201320']])
  })

  it('drops a dashed token the file spells two ways', () => {
    const restyle = deriveRestyle(['a\u2013b', 'a-b'], ['a-b', 'a-b'], 'fold')
    expect(restyle.dashTokens).toEqual([])
  })
})

describe('restyleLine', () => {
  it('re-indents added lines relative to the matched ones and leaves blank lines alone', () => {
    const restyle = deriveRestyle(['    if x:', '        y()'], ['if x:', '  y()'], 'trim')
    expect(restyleLine('  z()', restyle)).toBe('        z()')
    expect(restyleLine('    deeper()', restyle)).toBe('            deeper()')
    expect(restyleLine('after()', restyle)).toBe('    after()')
    expect(restyleLine('', restyle)).toBe('')
    expect(restyleLine('   ', restyle)).toBe('   ')
  })

  it('writes tabs, never a tab-space mix, for a tab-indented file', () => {
    const restyle = deriveRestyle(
      ['\tif x {', '\t\treturn'],
      ['    if x {', '        return'],
      'trim',
    )
    expect(restyleLine('        log()', restyle)).toBe('\t\tlog()')
    expect(restyleLine('            deep()', restyle)).toBe('\t\t\tdeep()')
  })

  it('chooses opening or closing curly quotes by the previous character', () => {
    const restyle = { ...IDENTITY_RESTYLE, curlyDouble: true, curlySingle: true }
    expect(restyleLine(`say "hi" (and 'bye') don't`, restyle)).toBe(
      'say \u201chi\u201d (and \u2018bye\u2019) don\u2019t',
    )
    expect(restyleLine(`"start`, restyle)).toBe('\u201cstart')
  })

  it('converts only the quote kind the file uses', () => {
    const restyle = { ...IDENTITY_RESTYLE, curlyDouble: true }
    expect(restyleLine(`"a" 'b'`, restyle)).toBe(`\u201ca\u201d 'b'`)
  })

  it('replaces whole dashed tokens only', () => {
    const restyle = { ...IDENTITY_RESTYLE, dashTokens: [['10-20', '10\u201320']] as const }
    expect(restyleLine('see 10-20 and 10-200 and x-y', restyle)).toBe(
      'see 10\u201320 and 10-200 and x-y',
    )
  })

  it('round-trips a derived restyle on added lines', () => {
    const restyle = deriveRestyle(['\t\tmsg = \u201cold\u201d'], ['msg = "old"'], 'fold')
    expect(restyleLine('msg = "new"', restyle)).toBe('\t\tmsg = \u201cnew\u201d')
  })
})

describe('deriveRestyle toward ASCII', () => {
  it('turns curly quotes in added lines into the ASCII quotes the file uses', () => {
    const restyle = deriveRestyle(
      ['x = "hello"', "y = 'a'"],
      ['x = \u201chello\u201d', 'y = \u2018a\u2019'],
      'fold',
    )
    expect(restyle.asciiDouble).toBe(true)
    expect(restyle.asciiSingle).toBe(true)
    expect(restyleLine('x = \u201cbye\u201d + \u2018b\u2019', restyle)).toBe(`x = "bye" + 'b'`)
  })

  it('keeps curly quotes when the file has them too', () => {
    const restyle = deriveRestyle(['t = \u201cok\u201d'], ['t = \u201cok\u201d'], 'fold')
    expect(restyle.asciiDouble).toBe(false)
    expect(restyleLine('u = \u201cno\u201d', restyle)).toBe('u = \u201cno\u201d')
  })

  it('turns odd spaces in added lines into the plain spaces the file uses', () => {
    const restyle = deriveRestyle(['a = 1'], ['a\u00a0=\u00a01'], 'fold')
    expect(restyle.asciiSpaces).toBe(true)
    expect(restyleLine('b\u00a0=\u20032', restyle)).toBe('b = 2')
    expect(isIdentityRestyle(restyle)).toBe(false)
  })

  it('spells a dashed token the ASCII way when the file does', () => {
    const restyle = deriveRestyle(['n = x - 1'], ['n = x \u2212 1'], 'fold')
    expect(restyleLine('m = y \u2212 1', restyle)).toBe('m = y - 1')
  })
})
