import { describe, expect, it } from 'vitest'
import { codexLineModel, splitHunkAtCr } from '../../../src/apply/codex-line-model.js'
import { firstEol, hasLoneCr, splitCodexLines } from '../../../src/text/codex-lines.js'
import { joinLines } from '../../../src/text/lines.js'
import type { LineHunk } from '../../../src/types.js'

const hunk = (lines: LineHunk['lines']): LineHunk => ({
  patchLine: 3,
  hints: [],
  endOfFile: false,
  lines,
})

describe("Codex's line model", () => {
  it('tells a lone CR from the CR of a CRLF', () => {
    expect(hasLoneCr('a\r\nb\n')).toBe(false)
    expect(hasLoneCr('a\r\nb\rc')).toBe(true)
    expect(hasLoneCr('a\r')).toBe(true)
    expect(hasLoneCr('')).toBe(false)
  })

  it('ends lines at CR, LF and CRLF, each keeping its own ending', () => {
    const text = 'a\rb\nc\r\nd\r\re'
    const lines = splitCodexLines(text)
    expect(lines).toEqual([
      { text: 'a', eol: '\r' },
      { text: 'b', eol: '\n' },
      { text: 'c', eol: '\r\n' },
      { text: 'd', eol: '\r' },
      { text: '', eol: '\r' },
      { text: 'e', eol: '' },
    ])
    expect(joinLines(lines)).toBe(text)
    expect(splitCodexLines('')).toEqual([])
  })

  it("takes the file's first ending for new lines, LF when it has none", () => {
    expect(firstEol(splitCodexLines('x\r\ny\rz\n'))).toBe('\r\n')
    expect(firstEol(splitCodexLines('x\ry\r\n'))).toBe('\r')
    expect(firstEol(splitCodexLines('x'))).toBe('\n')
  })

  it('splits context and removed lines at their CRs and leaves added lines whole', () => {
    const split = splitHunkAtCr(
      hunk([
        { op: ' ', text: 'head\rsub' },
        { op: '-', text: 'end\r' },
        { op: '+', text: 'n\rm' },
      ]),
    )
    expect(split.lines).toEqual([
      { op: ' ', text: 'head' },
      { op: ' ', text: 'sub' },
      { op: '-', text: 'end' },
      { op: '+', text: 'n\rm' },
    ])
    // Its lines no longer follow the patch's one for one: no body line is named by patch line.
    const placed = splitHunkAtCr({ ...hunk([{ op: ' ', text: 'a\rb' }]), bodyOffset: 1 })
    expect(placed.bodyOffset).toBeUndefined()
    const plain = hunk([{ op: ' ', text: 'a' }])
    expect(splitHunkAtCr(plain)).toBe(plain)
  })

  it('is used only for a file holding a lone CR', () => {
    const hunks = [hunk([{ op: '-', text: 'a\rb' }])]
    expect(codexLineModel('a\r\nb\n', hunks)).toBeNull()
    const model = codexLineModel('a\rb\n', hunks)
    expect(model?.lines).toEqual(splitCodexLines('a\rb\n'))
    expect(model?.hunks[0]?.lines).toEqual([
      { op: '-', text: 'a' },
      { op: '-', text: 'b' },
    ])
    expect(model?.newLineEol).toBe('\r')
  })
})
