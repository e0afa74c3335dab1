// The public parsePatch (D-105): a summary of what the patch states, EditError on failure.
import { describe, expect, it } from 'vitest'
import { parsePatch } from '../../../src/engine/parse-patch.js'
import { EditError } from '../../../src/errors.js'
import type { FormatOption } from '../../../src/types.js'

const CODEX = [
  '*** Begin Patch',
  '*** Update File: a.txt',
  '@@',
  '-one',
  '+ONE',
  '+two',
  '*** Delete File: old.txt',
  '*** End Patch',
  '',
].join('\n')

function codeOf(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(EditError)
    return (error as EditError).code
  }
  throw new Error('expected an EditError')
}

describe('parsePatch', () => {
  it('reads the patch as the engine does, model stop tokens cut from its end, and says so', () => {
    const summary = parsePatch(CODEX.replace('*** End Patch\n', '*** End Patch<|im_end|>'))
    expect(summary).toEqual({
      ...parsePatch(CODEX),
      warnings: [{ code: 'parse.stop-token', message: expect.any(String), patchLine: 8 }],
    })
    expect(summary.warnings?.[0]?.message).toContain('<|im_end|>')
  })

  it('reports the detected format and each file as the patch states it', () => {
    expect(parsePatch(CODEX)).toEqual({
      format: 'codex',
      files: [
        { path: 'a.txt', op: 'update', additions: 2, deletions: 1 },
        // A Codex delete does not list the removed lines: unknown, not guessed.
        { path: 'old.txt', op: 'delete', additions: 0, deletions: null },
      ],
    })
  })

  it('takes the patch as bytes, as the engine does', () => {
    expect(parsePatch(new TextEncoder().encode(CODEX))).toEqual(parsePatch(CODEX))
  })

  it('throws EditError where the engine would reject the patch before reading a file', () => {
    expect(codeOf(() => parsePatch('please rename the function\n'))).toBe('PARSE_UNKNOWN_FORMAT')
    expect(codeOf(() => parsePatch(CODEX, 'unified'))).toMatch(/^PARSE_/)
    expect(codeOf(() => parsePatch(CODEX, 'diff' as FormatOption))).toBe('CONFIG_INVALID')
    // A JSON edit list must be UTF-8 (D-040): the engine's encoding check runs here too.
    const latin1 = new Uint8Array([
      ...new TextEncoder().encode('{"edits":[{"path":"a","old_string":"'),
      0xe9,
      ...new TextEncoder().encode('","new_string":"b"}]}'),
    ])
    expect(codeOf(() => parsePatch(latin1))).toBe('PARSE_BAD_ENCODING')
  })
})
