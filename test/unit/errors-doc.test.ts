// ERRORS.md is rendered from ERROR_CODES here, so the documentation cannot drift from the code.
// Regenerate after changing src/errors.ts: npx vitest run test/unit/errors-doc.test.ts -u
// (-u goes last: vitest 4 reads `-u <word>` as the update mode, so `-u path` would not filter.)
import { describe, expect, it } from 'vitest'
import { ERROR_CODES, type ErrorCode } from '../../src/errors.js'

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ')
}

function renderErrorsDoc(): string {
  const rows = (Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => {
    const entry = ERROR_CODES[code]
    const retryable = entry.retryable ? 'yes' : 'no'
    return `| \`${code}\` | ${retryable} | ${cell(entry.meaning)} | ${cell(entry.hint)} |`
  })
  return [
    '# patchloom error codes',
    '',
    '<!-- Generated from src/errors.ts by test/unit/errors-doc.test.ts; do not edit. -->',
    '',
    'This file is generated from `ERROR_CODES` in `src/errors.ts`. To regenerate it after changing',
    'that table, run:',
    '',
    '```sh',
    'npx vitest run test/unit/errors-doc.test.ts -u',
    '```',
    '',
    'Every failure carries one of these codes, with a `message` (what happened, naming the path',
    'and the 1-based patch line when known), a `hint` (what to do next; the default is listed',
    'below, a throw site may give a sharper one) and `retryable`: resending the same request,',
    'unchanged, may succeed. `MATCH_*` errors may add up to five `candidates` (`fileLine`,',
    '`score`, `preview`);',
    "`FILE_CHANGED` and `FILE_HASH_MISMATCH` add the file's `currentHash` when it exists.",
    '',
    '## Codes',
    '',
    '| code | retryable | meaning | hint |',
    '|---|---|---|---|',
    ...rows,
    '',
    '## CLI exit status',
    '',
    '`patchloom apply` and `patchloom check` exit with:',
    '',
    '| exit | meaning |',
    '|---|---|',
    '| 0 | applied (or, for a dry run or `check`, would apply) |',
    '| 1 | rejected with nothing written: fix the patch, or re-read the file and regenerate it (any non-retryable code, e.g. `FILE_HASH_MISMATCH`) |',
    '| 64 | usage: unknown command or flag, missing value, bad `--format` (`USAGE_INVALID`) |',
    '| 70 | internal error, a bug in patchloom (`INTERNAL`; the stack goes to stderr) |',
    '| 75 | retryable (`EX_TEMPFAIL`): resend unchanged, e.g. `FILE_CHANGED` |',
    '',
    'With `--json` the CLI prints exactly one JSON line on stdout: `{"ok":true,...}` or',
    '`{"ok":false,"error":{"code","message","hint","retryable",...}}`.',
    '',
  ].join('\n')
}

describe('ERRORS.md', () => {
  it('matches the rendering of ERROR_CODES', async () => {
    await expect(renderErrorsDoc()).toMatchFileSnapshot('../../ERRORS.md')
  })
})
