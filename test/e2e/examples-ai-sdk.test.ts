// test/examples/ai-sdk.mjs, the example the README quotes for patchloom/ai-sdk, run with `node`
// in scripted mode (OPENAI_API_KEY removed), importing the built package through its own
// exports ('patchloom', 'patchloom/ai-sdk'): it must exit 0 and print what the model read back.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { runExample } from '../helpers/run-example.js'

const BUILT = fileURLToPath(new URL('../../dist/src/adapters/ai-sdk.js', import.meta.url))

const HASH = 'sha256:[0-9a-f]{64}'

describe('the patchloom/ai-sdk example', () => {
  it("runs patchloom's tools and OpenAI's apply_patch tool in generateText with a scripted model", async () => {
    expect(existsSync(BUILT), `${BUILT} is missing; run \`npm run build\` first`).toBe(true)
    const { code, stdout, stderr } = await runExample('ai-sdk', 'OPENAI_API_KEY')
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toContain('(a scripted model)')
    expect(stdout).toMatch(
      new RegExp(
        `call_1 edit_file refused: FILE_STALE_READ: greet\\.py exists and this agent has not read it;`,
      ),
    )
    expect(stdout).toMatch(
      new RegExp(`call_2 read_file ok: greet\\.py lines 1-6 of 6 \\(content_hash ${HASH}\\)`),
    )
    expect(stdout).toMatch(
      new RegExp(
        `call_3 edit_file ok: M greet\\.py \\(\\+1 -1\\)\\n {6}content_hash greet\\.py: ${HASH}\\n`,
      ),
    )
    expect(stdout).toContain('call_4 write_file ok: A NOTES.md')
    expect(stdout).toContain('model: Done.')
    expect(stdout).toMatch(
      new RegExp(
        `call_5 apply_patch ok: M greet\\.py \\(\\+2 -2\\)\\n {6}content_hash greet\\.py: ${HASH}\\n`,
      ),
    )
    expect(stdout).toContain('model: Renamed.')
    expect(stdout).toMatch(/\nok: the files came out right\n$/)
  })
})
