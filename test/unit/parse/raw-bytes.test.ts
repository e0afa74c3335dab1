import { describe, expect, it } from 'vitest'
import { checkPlanEncoding, opHasRawBytes } from '../../../src/parse/raw-bytes.js'
import type { EditPlan, FileOp } from '../../../src/types.js'

const RAW_E9 = '\udce9'

const update = (text: string, hints: string[] = [], moveTo?: string): FileOp => ({
  kind: 'update',
  path: 'menu.txt',
  patchLine: 2,
  locate: 'cursor',
  ...(moveTo === undefined ? {} : { moveTo }),
  hunks: [{ patchLine: 3, hints, endOfFile: false, lines: [{ op: '+', text }] }],
})

describe('checkPlanEncoding', () => {
  it('accepts raw bytes in line content', () => {
    const plan: EditPlan = { format: 'codex', ops: [update(`caf${RAW_E9}`)] }
    expect(checkPlanEncoding(plan, 3)).toEqual({ ok: true, value: undefined })
  })

  it('refuses a JSON edit list that is not UTF-8, at its first bad line', () => {
    const plan: EditPlan = { format: 'edits', ops: [] }
    const judged = checkPlanEncoding(plan, 4)
    expect(judged.ok).toBe(false)
    if (!judged.ok) expect(judged.error).toMatchObject({ code: 'PARSE_BAD_ENCODING', patchLine: 4 })
  })

  it('refuses a path with raw bytes, move targets included, showing them as \\xNN', () => {
    for (const op of [
      { ...update('x'), path: `caf${RAW_E9}.txt` },
      update('x', [], `caf${RAW_E9}.txt`),
    ]) {
      const judged = checkPlanEncoding({ format: 'codex', ops: [op] }, 1)
      expect(judged.ok).toBe(false)
      if (!judged.ok) {
        expect(judged.error).toMatchObject({ code: 'PATH_INVALID', patchLine: 2 })
        expect(judged.error.message).toContain("'caf\\xe9.txt'")
        expect(judged.error.message).not.toMatch(/[\udc80-\udcff]/u)
      }
    }
  })
})

describe('checkPlanEncoding on a UTF-8 patch', () => {
  it('passes every non-JSON plan untouched', () => {
    const plan: EditPlan = { format: 'codex', ops: [update(`caf${RAW_E9}`)] }
    expect(checkPlanEncoding(plan, undefined).ok).toBe(true)
  })

  it('refuses a JSON edit whose \\u escape is an unpaired surrogate, and such a path', () => {
    const edit = (path: string, newString: string): EditPlan => ({
      format: 'edits',
      ops: [
        {
          kind: 'edits',
          path,
          patchLine: 2,
          edits: [
            { mode: 'write', index: 1, content: 'ok' },
            { mode: 'write', index: 2, content: newString },
          ],
        },
      ],
    })
    expect(checkPlanEncoding(edit('a.txt', 'café 💀'), undefined).ok).toBe(true)
    const judged = checkPlanEncoding(edit('a.txt', 'x\ud800'), undefined)
    expect(judged.ok).toBe(false)
    if (!judged.ok) expect(judged.error).toMatchObject({ code: 'PARSE_BAD_ENCODING', patchLine: 3 })
    const path = checkPlanEncoding(edit('a\udfff.txt', 'x'), undefined)
    expect(path.ok).toBe(false)
    if (!path.ok) expect(path.error.message).toContain("'a\\udfff.txt'")
  })
})

describe('opHasRawBytes', () => {
  it('looks at added content, hunk lines and hints only', () => {
    expect(opHasRawBytes(update('plain'))).toBe(false)
    expect(opHasRawBytes(update(`a${RAW_E9}`))).toBe(true)
    expect(opHasRawBytes(update('plain', [`def caf${RAW_E9}`]))).toBe(true)
    const add: FileOp = { kind: 'add', path: 'a', patchLine: 1, content: RAW_E9, overwrite: true }
    expect(opHasRawBytes(add)).toBe(true)
    expect(opHasRawBytes({ kind: 'edits', path: 'a', patchLine: 1, edits: [] })).toBe(false)
  })
})
