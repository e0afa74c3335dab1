// Prefix property for the Codex parser (borrowed from Codex's apply-patch tests): a patch cut off
// anywhere, as a streaming or truncated agent reply is, never makes the parser throw, and never
// yields more ops than the whole patch. A cut right after *** End Patch yields every op.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseCodexPatch } from '../../../src/parse/codex.js'
import type { Result } from '../../../src/result.js'
import { splitPatchLines } from '../../../src/text/lines.js'
import type { EditPlan } from '../../../src/types.js'

/** A patch exercising every construct: adds, deletes, updates, moves, nested hints, End of File. */
function buildPatch(files: number): string {
  const lines: string[] = ['*** Begin Patch']
  for (let n = 0; n < files; n++) {
    switch (n % 6) {
      case 0:
        lines.push(`*** Add File: src/added-${n}.ts`, `+export const n${n} = ${n}`, '+', `+// ${n}`)
        break
      case 1:
        lines.push(`*** Delete File: src/old-${n}.ts`, '')
        break
      case 2:
        lines.push(
          `*** Update File: src/mod-${n}.ts`,
          ` import { x } from './x.js'`,
          `-const a${n} = 1`,
          `+const a${n} = 2`,
          '@@ class Widget',
          '@@',
          '@@   render() {',
          '     const y = 1',
          '',
          '-    return y',
          '+    return y + 1',
          '@@ export function tail()',
          ' }',
          `+// tail ${n}`,
          '*** End of File',
        )
        break
      case 3:
        lines.push(`*** Update File: src/from-${n}.ts`, `*** Move to: lib/to-${n}.ts`)
        lines.push('@@', '-old', '+new')
        break
      case 4:
        lines.push(`*** Update File: src/rename-${n}.ts`, `  *** Move to: lib/renamed-${n}.ts  `)
        break
      default:
        lines.push(`*** Update File: src/multi-${n}.ts`, '@@ first', ' a', '-b')
        lines.push('@@ second', ' c', '+d', '  ', '')
        break
    }
  }
  lines.push('*** End Patch', '')
  return `${lines.join('\n')}\n`
}

function opCount(result: Result<EditPlan>): number {
  return result.ok ? result.value.ops.length : 0
}

function hunkCount(result: Result<EditPlan>): number {
  if (!result.ok) return 0
  let count = 0
  for (const op of result.value.ops) if ('hunks' in op) count += op.hunks.length
  return count
}

/** Parses `text` and checks the invariants every prefix must keep. */
function checkPrefix(text: string, full: Result<EditPlan>): Result<EditPlan> {
  let result: Result<EditPlan> | undefined
  expect(() => {
    result = parseCodexPatch(text)
  }).not.toThrow()
  if (result === undefined) throw new Error('parseCodexPatch returned nothing')
  expect(typeof result.ok).toBe('boolean')
  if (result.ok) {
    expect(result.value.ops.length).toBeLessThanOrEqual(opCount(full))
    expect(hunkCount(result)).toBeLessThanOrEqual(hunkCount(full))
  } else {
    expect(result.error.code.startsWith('PARSE_')).toBe(true)
    if (result.error.patchLine !== undefined) {
      expect(result.error.patchLine).toBeGreaterThanOrEqual(1)
      expect(result.error.patchLine).toBeLessThanOrEqual(Math.max(1, splitPatchLines(text).length))
    }
  }
  return result
}

function endsRightAfterEndPatch(text: string): boolean {
  return /\*\*\* End Patch\r?\n?$/.test(text)
}

describe('parseCodexPatch on prefixes', () => {
  const large = buildPatch(60)
  const variants = [
    ['LF', large],
    ['CRLF', large.replaceAll('\n', '\r\n')],
    ['heredoc', `apply_patch <<'EOF'\n${large}EOF\n`],
  ] as const

  it('parses the whole large patch into one op per file section', () => {
    const full = parseCodexPatch(large)
    expect(full.ok).toBe(true)
    expect(opCount(full)).toBe(60)
    expect(hunkCount(full)).toBe(10 * 3 + 10 * 1 + 10 * 2)
    const kinds = (result: Result<EditPlan>): string[] =>
      result.ok ? result.value.ops.map((op) => op.kind) : []
    expect(parseCodexPatch(large.replaceAll('\n', '\r\n'))).toEqual(full)
    for (const [, text] of variants) expect(kinds(parseCodexPatch(text))).toEqual(kinds(full))
  })

  for (const [name, text] of variants) {
    it(`never throws on any line prefix of the ${name} patch and never gains ops`, () => {
      const full = parseCodexPatch(text)
      const eol = name === 'CRLF' ? '\r\n' : '\n'
      const lines = text.split(eol)
      let completed = 0
      for (let k = 0; k <= lines.length; k++) {
        const cut = lines.slice(0, k).join(eol)
        for (const prefix of [cut, cut + eol]) {
          const result = checkPrefix(prefix, full)
          if (endsRightAfterEndPatch(prefix)) {
            expect(opCount(result)).toBe(opCount(full))
            completed++
          }
        }
      }
      expect(completed).toBeGreaterThanOrEqual(2)
    })
  }

  it('never throws on any character prefix of a smaller patch and never gains ops', () => {
    for (const text of [buildPatch(8), buildPatch(8).replaceAll('\n', '\r\n')]) {
      const full = parseCodexPatch(text)
      expect(opCount(full)).toBe(8)
      let completed = 0
      for (let n = 0; n <= text.length; n++) {
        const prefix = text.slice(0, n)
        const result = checkPrefix(prefix, full)
        if (endsRightAfterEndPatch(prefix)) {
          expect(opCount(result)).toBe(opCount(full))
          completed++
        }
      }
      expect(completed).toBeGreaterThanOrEqual(2)
    }
  })

  it('fails every prefix that stops before *** End Patch', () => {
    const text = buildPatch(8)
    const end = text.indexOf('*** End Patch')
    for (let n = 0; n < end + '*** End Patch'.length; n++) {
      expect(parseCodexPatch(text.slice(0, n)).ok).toBe(false)
    }
  })

  it('never throws on random splices of patch fragments (seeded)', () => {
    const fragment = fc.constantFrom(
      '*** Begin Patch',
      '*** End Patch',
      '*** Add File: a',
      '*** Delete File: b',
      '*** Update File: c',
      '*** Move to: d',
      '*** End of File',
      '  *** End Patch  ',
      '@@',
      '@@ hint',
      ' ctx',
      '-old',
      '+new',
      '',
      '\r',
      'EOF',
      "apply_patch <<'EOF'",
      '***',
      'prose',
    )
    fc.assert(
      fc.property(
        fc.array(fragment, { maxLength: 30 }),
        fc.constantFrom('\n', '\r\n'),
        (parts, eol) => {
          const text = parts.join(eol)
          const result = parseCodexPatch(text)
          const patchLine = result.ok ? undefined : result.error.patchLine
          if (patchLine === undefined) return typeof result.ok === 'boolean'
          return patchLine >= 1 && patchLine <= splitPatchLines(text).length
        },
      ),
      { seed: 20_240_611, numRuns: 2_000 },
    )
  })
})
