// test/examples/openai-agents.mjs, the example the README quotes for patchloom/openai, run with
// `node` in scripted mode (OPENAI_API_KEY removed), importing the built package through its
// own exports ('patchloom', 'patchloom/openai'): it must exit 0 and print each loop's outputs.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { runExample } from '../helpers/run-example.js'

const BUILT = fileURLToPath(new URL('../../dist/src/adapters/openai.js', import.meta.url))

describe('the patchloom/openai example', () => {
  it('runs the Agents SDK and the Responses API loops with a scripted model', async () => {
    expect(existsSync(BUILT), `${BUILT} is missing; run \`npm run build\` first`).toBe(true)
    const { code, stdout, stderr } = await runExample('openai-agents', 'OPENAI_API_KEY')
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toContain('(a scripted model)')
    expect(stdout).toMatch(
      /call_1 completed: M greet\.py \(\+1 -1\)\n {6}content_hash greet\.py: sha256:[0-9a-f]{64}\n/,
    )
    expect(stdout).toContain('call_2 completed: A NOTES.md')
    expect(stdout).toContain('agent: Done.')
    expect(stdout).toContain('call_a failed: MATCH_NOT_FOUND: ')
    expect(stdout).toContain(
      'call_b failed: not applied: call call_a failed, and the calls of this response are applied together or not at all (atomic); nothing was written.',
    )
    const shared =
      /call_c completed: M greet\.py \(\+2 -2\)\n(?: {6}.*\n)*? {6}transaction (\S+) \(one transaction for the 2 calls of this response: call_c, call_d\)/.exec(
        stdout,
      )
    expect(shared).not.toBeNull()
    expect(stdout).toContain(`journal: ${shared?.[1]} changed greet.py, welcome_test.py`)
    expect(stdout).toMatch(/\nok: the files came out right\n$/)
  })
})
