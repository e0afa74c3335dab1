// The comment rules of CONTRIBUTING.md, read off the source: a shipped file opens with at most
// OPENING_MAX comment lines saying what it does; no comment, in the code or its tests and
// benches, names a bare issue number (the reason is in DECISIONS.md, cited as D-NNN where a rule
// would surprise); JSDoc, which ships in the .d.ts files while DECISIONS.md does not, cites no
// decisions. Plant an issue number in a comment anywhere in src/ or test/ to see it fail.
import { readdirSync, readFileSync } from 'node:fs'
import { posix } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
/** What ships: its openings and JSDoc are held to the rules. */
const FOLDERS = ['src', 'workers', 'lsp-adapters']
/** Where no comment may name an issue by number. */
const ISSUE_FREE = [...FOLDERS, 'test', 'bench']
export const OPENING_MAX = 8

/**
 * The comment text of a TypeScript source, line by line: a scan that skips string literals, so a
 * `//` inside a string is code and an apostrophe inside a comment is text. Regex literals are not
 * parsed; no source here has one holding a quote or a comment marker.
 */
export function commentLines(source: string): { line: number; text: string; doc: boolean }[] {
  const out: { line: number; text: string; doc: boolean }[] = []
  let inBlock = false
  let doc = false
  let quote = ''
  source.split('\n').forEach((line, i) => {
    let text: string | null = inBlock ? '' : null
    for (let k = 0; k < line.length; k++) {
      const c = line[k] as string
      if (inBlock) {
        if (line.startsWith('*/', k)) {
          inBlock = false
          k++
        } else text += c
      } else if (quote !== '') {
        if (c === '\\') k++
        else if (c === quote) quote = ''
      } else if (c === "'" || c === '"' || c === '`') {
        quote = c
      } else if (line.startsWith('//', k)) {
        out.push({ line: i + 1, text: line.slice(k + 2), doc: false })
        return
      } else if (line.startsWith('/*', k)) {
        inBlock = true
        doc = line.startsWith('/**', k)
        text = text ?? ''
        k += doc ? 2 : 1
      }
    }
    if (text !== null) out.push({ line: i + 1, text, doc })
    // A template literal may run on; a quote cannot pass the end of a line.
    if (quote !== '`') quote = ''
  })
  return out
}

/** How many lines the file's opening comment (before the first line of code) runs. */
export function openingLength(source: string): number {
  let n = 0
  for (const raw of source.split('\n')) {
    const line = raw.trim()
    if (line.startsWith('#!')) continue
    if (line.startsWith('//') || line.startsWith('/*') || line.startsWith('*')) n++
    else break
  }
  return n
}

/** A bare issue number: `#` and digits, not an HTML entity, a colour or a private field. */
export const ISSUE_RE = /(?<![\w&/])#\d+\b/
export const DECISION_RE = /\bD-\d{3}\b/

function sources(dir: string): string[] {
  const abs = posix.join(ROOT, dir)
  return (
    readdirSync(abs, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => posix.join(dir, f.split('\\').join('/')))
      // Scenario and fixture files are data: the files patches are applied to.
      .filter((f) => !/^test\/(?:scenarios|fixtures)\//.test(f))
      .sort()
  )
}

describe('comment rules', () => {
  const files = FOLDERS.flatMap(sources)
  const read = (f: string) => readFileSync(posix.join(ROOT, f), 'utf8')

  it('finds the files it checks', () => {
    expect(files.length).toBeGreaterThan(100)
  })

  it('opens every file with at most OPENING_MAX comment lines', () => {
    const long = files
      .map((f) => `${f}: ${openingLength(read(f))}`)
      .filter((s) => Number(s.split(': ')[1]) > OPENING_MAX)
    expect(long).toEqual([])
  })

  it('names no bare issue numbers in comments, tests and benches included', () => {
    const hits = ISSUE_FREE.flatMap(sources).flatMap((f) =>
      commentLines(read(f))
        .filter((c) => ISSUE_RE.test(c.text))
        .map((c) => `${f}:${c.line}: ${c.text.trim()}`),
    )
    expect(hits).toEqual([])
  })

  it('cites no decisions in JSDoc, which ships while DECISIONS.md does not', () => {
    const hits = files.flatMap((f) =>
      commentLines(read(f))
        .filter((c) => c.doc && DECISION_RE.test(c.text))
        .map((c) => `${f}:${c.line}: ${c.text.trim()}`),
    )
    expect(hits).toEqual([])
  })
})

describe('the checks themselves', () => {
  it('see an issue number in a comment but not in a string or a private field', () => {
    const src =
      "const a = '#12' // fixed in #12\nthis.#9x = 1\n/** see #4 */\n// the ranges' plan (#5)\n" +
      "const b = '// #6'\n"
    const hits = commentLines(src).filter((c) => ISSUE_RE.test(c.text))
    expect(hits.map((c) => c.line)).toEqual([1, 3, 4])
  })

  it('tell JSDoc from line comments and measure the opening', () => {
    const src = '// one\n// two\n/**\n * D-012\n */\nexport const x = 1 // D-013\n'
    expect(openingLength(src)).toBe(5)
    const docHits = commentLines(src).filter((c) => c.doc && DECISION_RE.test(c.text))
    expect(docHits.map((c) => c.line)).toEqual([4])
  })
})
