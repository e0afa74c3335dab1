import { describe, expect, it } from 'vitest'
import { restatedLineDetail, stopTokenDetail } from '../../../src/apply/edit-guards.js'

describe('stopTokenDetail', () => {
  it('names a stop token at the end of new_string, whitespace after it allowed', () => {
    expect(stopTokenDetail('a.ts', 'x = 1<|im_end|>', 'x = 0')).toContain('<|im_end|>')
    expect(stopTokenDetail('a.ts', 'x = 1\n<|eot_id|>\n', 'x = 0')).toContain('<|eot_id|>')
  })

  it('passes a token old_string ends in too, a token inside the text, and none', () => {
    expect(stopTokenDetail('a.ts', 'end: <|im_end|>', 'was: <|im_end|>')).toBeNull()
    expect(stopTokenDetail('a.ts', "const t = '<|im_end|>'", 'x')).toBeNull()
    expect(stopTokenDetail('a.ts', 'x = 1', 'x = 0')).toBeNull()
  })
})

describe('restatedLineDetail', () => {
  it('refuses a start cut whose new_string restates the text before the match', () => {
    expect(
      restatedLineDetail('a.ts', 'st x = 1\ny', '  const x = 2\ny', '  con', ''),
    ).not.toBeNull()
    // The indentation alone, for one line as well.
    expect(restatedLineDetail('a.ts', 'return a', '  return b', '  ', '')).not.toBeNull()
  })

  it('refuses an end cut whose new_string restates the rest of the line', () => {
    expect(
      restatedLineDetail('a.ts', 'a\n  return tot', 'b\n  return total + c', '', 'al + c'),
    ).not.toBeNull()
  })

  it('passes mid-line edits on both sides, one-line edits after text, and punctuation', () => {
    expect(restatedLineDetail('a.ts', 'f(1,\n2', 'g(1,\n3', 'x = ', '))')).toBeNull()
    expect(restatedLineDetail('a.ts', 'f(1)', 'f(2)', 'f(', ')')).toBeNull()
    expect(restatedLineDetail('a.ts', 'g(x,\n  y)', 'g(x,\n  z)', 'f(', ')')).toBeNull()
    expect(restatedLineDetail('a.ts', 'return a', 'return b', '  ', '')).toBeNull()
    // A match that ends with its line break ends at a line start: nothing after it is cut.
    expect(restatedLineDetail('a.ts', 'a\nb\n', 'a\nc + d\n', '', 'd')).toBeNull()
  })
})
