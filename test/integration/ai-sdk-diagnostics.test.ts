// patchloom/ai-sdk with the real TypeScript language server (`tsc --lsp`, from node_modules):
// in generateText with a scripted MockLanguageModelV3, an edit that breaks a type comes back with
// the error it introduced, and the diagnostics tool lists the file's errors as they are on disk.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { patchloomTools } from '../../src/adapters/ai-sdk.js'
import { createEngine } from '../../src/engine/engine.js'
import { loop, textResult, toolMessage } from '../unit/adapters/ai-sdk-fixture.js'

let root: string
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'patchloom-ai-sdk-diag-'))
  await writeFile(
    path.join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true } }),
  )
  await writeFile(path.join(root, 'a.ts'), 'export const x: number = 1\n')
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

describe('the AI SDK tools with the real TypeScript server', () => {
  it('an edit reads back the error it introduced; the diagnostics tool lists it', async () => {
    const engine = createEngine({ root, workers: false, diagnostics: { deadlineMs: 30_000 } })
    try {
      const { sent } = await loop(patchloomTools(engine), [
        [{ id: 'r1', tool: 'read_file', input: { path: 'a.ts' } }],
        [
          {
            id: 'e1',
            tool: 'edit_file',
            input: { path: 'a.ts', old_string: '= 1', new_string: '= "one"' },
          },
        ],
        [{ id: 'd1', tool: 'diagnostics', input: { paths: ['a.ts'] } }],
      ])
      const error = "a.ts:1:14 error: Type 'string' is not assignable to type 'number'."
      expect(sent(1)).toMatchObject(
        toolMessage(
          textResult(
            'e1',
            'edit_file',
            expect.stringMatching(
              new RegExp(`^M a\\.ts \\(\\+1 -1\\)\\n[^]*\\nintroduced ${escape(error)}\\n`),
            ),
          ),
        ),
      )
      expect(sent(2)).toEqual(toolMessage(textResult('d1', 'diagnostics', error)))
    } finally {
      await engine.close()
    }
  })
})

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
