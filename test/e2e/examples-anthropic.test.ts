// test/examples/anthropic.mjs, the README's Anthropic example, run with node in scripted mode
// (ANTHROPIC_API_KEY removed): it imports patchloom/anthropic from the built package (dist/).
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { runExample } from '../helpers/run-example.js'

const BUILT = fileURLToPath(new URL('../../dist/src/adapters/anthropic.js', import.meta.url))

describe('test/examples/anthropic.mjs', () => {
  it('runs the scripted tool loop: a refused str_replace names both matches, the retry lands', async () => {
    expect(existsSync(BUILT), 'run `npm run build` first').toBe(true)
    const { code, stdout, stderr } = await runExample('anthropic', 'ANTHROPIC_API_KEY')
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toContain('model: scripted')
    expect(stdout).toContain(
      '> view .\n  | Here are the files and directories up to 2 levels deep in .',
    )
    expect(stdout).toContain(
      '> str_replace src/greet.js\n  (is_error)\n  | No replacement was made: old_str appears 2 times in src/greet.js, at lines 2, 6:\n',
    )
    expect(stdout).toContain('  | The file src/greet.js has been edited.\n')
    expect(stdout).toContain('  | Inserted 1 line at the top of src/greet.js.\n')
    expect(stdout).toMatch(/content_hash: sha256:[0-9a-f]{64}\n/)
    expect(stdout).toContain(
      "src/greet.js is now:\n// Greetings.\nexport function greet(name) {\n  return 'Hello, ' + name\n}\n\nexport function farewell(name) {\n  return 'Goodbye, ' + name\n}\n",
    )
    expect(stdout.trimEnd().endsWith('farewell() says Goodbye')).toBe(true)
  })
})
