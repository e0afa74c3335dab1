// expandReplacement (src/apply/regex.ts) against String.prototype.replace, which it mirrors.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { expandReplacement, type RegexMatch } from '../../../src/apply/regex.js'

/** The first match of `re` in `text` as the searcher reports it. */
function firstMatch(text: string, re: RegExp): RegexMatch {
  const m = re.exec(text)
  if (m === null) throw new Error('no match')
  const captures = m.slice(1)
  const base = { start: m.index, end: m.index + m[0].length, captures }
  return m.groups === undefined ? base : { ...base, named: { ...m.groups } }
}

describe('expandReplacement', () => {
  it("fills $1, $<name>, $&, $$, $` and $'", () => {
    const text = 'ab-cd'
    const m = firstMatch(text, /(?<left>\w+)-(\w+)/)
    expect(expandReplacement("$2-$1 $<left> [$&] $$ <$`|$'>", m, text)).toBe(
      'cd-ab ab [ab-cd] $ <|>',
    )
  })

  it('keeps unknown groups and lone dollars literal', () => {
    const text = 'x'
    const m = firstMatch(text, /(x)/)
    expect(expandReplacement('$2 $0 $ $<n> $a', m, text)).toBe('$2 $0 $ $<n> $a')
  })

  it('agrees with String.prototype.replace on random templates', () => {
    const template = fc
      .array(
        fc.constantFrom('$', '1', '2', '0', '&', '`', "'", '<', '>', 'n', 'a', '$1', '$<n>', '$11'),
        {
          maxLength: 8,
        },
      )
      .map((parts) => parts.join(''))
    const patterns = [/(?<n>b)(c)?/, /(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)/, /b/]
    fc.assert(
      fc.property(template, fc.constantFrom(...patterns), (t, re) => {
        const text = 'abcdefghijkl'
        const m = firstMatch(text, new RegExp(re.source))
        const native = text.replace(new RegExp(re.source), t)
        const ours = text.slice(0, m.start) + expandReplacement(t, m, text) + text.slice(m.end)
        expect(ours).toBe(native)
      }),
    )
  })
})
