import { describe, expect, it } from 'vitest'
import { hintScopeEnd } from '../../../src/match/scope.js'

/** The scope of the hint on 1-based line `fileLine` as 1-based [first, last]. */
function scopeOf(lines: readonly string[], fileLine: number): [number, number] {
  return [fileLine, hintScopeEnd(lines, fileLine - 1)]
}

describe('hintScopeEnd', () => {
  it('runs a Python block through its blank lines up to the next statement at its level', () => {
    const file = ['def g():', '    a = 1', '', '    return a', '', '', 'def h():', '    pass']
    expect(scopeOf(file, 1)).toEqual([1, 6])
    expect(scopeOf(file, 7)).toEqual([7, 8])
  })

  it('gives a nested block only its own lines', () => {
    const file = [
      'class B:',
      '    def run(self):',
      '        x()',
      '',
      '    def stop(self):',
      '        y()',
    ]
    expect(scopeOf(file, 1)).toEqual([1, 6])
    expect(scopeOf(file, 2)).toEqual([2, 4])
  })

  it('includes closing braces and the branches they continue', () => {
    const file = ['if (a) {', '  b()', '} else {', '  c()', '}', 'd()']
    expect(scopeOf(file, 1)).toEqual([1, 5])
  })

  it('treats a lone opening brace on the next line as the start of the block', () => {
    const file = ['int g(void)', '{', '    return 1;', '}', '', 'int h(void)', '{', '}']
    expect(scopeOf(file, 1)).toEqual([1, 5])
  })

  it('keeps a multi-line signature and its body together', () => {
    const file = ['def g(', '    a,', '):', '    return a', 'def h():', '    pass']
    expect(scopeOf(file, 1)).toEqual([1, 4])
  })

  it('closes Ruby and shell blocks on their keywords', () => {
    expect(scopeOf(['def a', '  1', 'end', 'def b', '  2', 'end'], 1)).toEqual([1, 3])
    expect(scopeOf(['if x; then', '  y', 'fi', 'z'], 1)).toEqual([1, 3])
  })

  it('scopes a hint that opens no block to the end of the block around it', () => {
    const file = ['function f() {', '  // setup', '  a()', '  b()', '}', '', 'function g() {', '}']
    expect(scopeOf(file, 2)).toEqual([2, 5])
  })

  it('scopes an unindented hint that opens no block to the end of the file, as Codex does', () => {
    const file = ['[server]', 'port = 80', '', '[client]', 'retries = 3']
    expect(scopeOf(file, 1)).toEqual([1, 5])
    expect(scopeOf(file, 4)).toEqual([4, 5])
  })

  it('lets preprocessor lines and comments at column 0 pass inside a block', () => {
    const c = [
      'int g(void)',
      '{',
      '#ifdef DEBUG',
      '    trace();',
      '#endif',
      '    return 0;',
      '}',
      'int h;',
    ]
    expect(scopeOf(c, 1)).toEqual([1, 7])
    const py = ['def g():', '    a = 1', '# old: a = 2', '    return a', 'def h():', '    pass']
    expect(scopeOf(py, 1)).toEqual([1, 4])
  })

  it('scopes a hint that is itself a # line by the same rule', () => {
    const md = ['# Title', 'text', '## Usage', 'run it', '## More', 'x']
    expect(scopeOf(md, 3)).toEqual([3, 6])
    const py = [
      'class A:',
      '    # helpers',
      '    def a(self):',
      '        pass',
      'class B:',
      '    x = 1',
    ]
    expect(scopeOf(py, 2)).toEqual([2, 4])
    const block = ['# region', '    a', '    b', 'c']
    expect(scopeOf(block, 1)).toEqual([1, 3])
  })

  it('counts a tab as indentation to the next multiple of eight', () => {
    const file = ['\tif x:', '\t\ty()', '        z()', '\tw()']
    expect(scopeOf(file, 1)).toEqual([1, 2])
  })

  it('ends at the line itself for a hint on the last line or a blank line', () => {
    expect(scopeOf(['a', '  b'], 2)).toEqual([2, 2])
    expect(hintScopeEnd(['a', '', 'b'], 1)).toBe(2)
  })

  it('stays linear when thousands of sibling closers follow each other', () => {
    const file: string[] = []
    for (let i = 0; i < 20_000; i++) file.push('}', `  step(${i})`)
    const t0 = performance.now()
    let sum = 0
    for (let i = 0; i < file.length; i += 2) sum += hintScopeEnd(file, i)
    expect(performance.now() - t0).toBeLessThan(2_000)
    // Each closer is followed by a deeper line, so every scope chains to the end of the file.
    expect(sum).toBe(20_000 * 40_000)
  })
})
