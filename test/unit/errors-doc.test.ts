// ERRORS.md is rendered from ERROR_CODES and WARNING_CODES here, so the documentation cannot drift
// from the code. Regenerate after changing src/errors.ts or src/warnings.ts: npx vitest run test/unit/errors-doc.test.ts -u
// (-u goes last: vitest 4 reads `-u <word>` as the update mode, so `-u path` would not filter.)
import { describe, expect, it } from 'vitest'
import { ERROR_CODES, type ErrorCode } from '../../src/errors.js'
import { WARNING_CODES } from '../../src/warnings.js'

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ')
}

function renderErrorsDoc(): string {
  const rows = (Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => {
    const entry = ERROR_CODES[code]
    const retryable = entry.retryable ? 'yes' : 'no'
    return `| \`${code}\` | ${retryable} | ${cell(entry.meaning)} | ${cell(entry.hint)} |`
  })
  const warnings = Object.entries(WARNING_CODES).map(
    ([code, meaning]) => `| \`${code}\` | ${cell(meaning)} |`,
  )
  return [
    '# patchloom error codes',
    '',
    '<!-- Generated from src/errors.ts and src/warnings.ts by test/unit/errors-doc.test.ts; do not edit. -->',
    '',
    'This file is generated from `ERROR_CODES` in `src/errors.ts` and `WARNING_CODES` in',
    '`src/warnings.ts`. To regenerate it after changing either table, run:',
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
    '## Warning codes',
    '',
    'A warning tells the caller something that did not stop the change. Results, undo results',
    'and recovery reports carry them as `warnings: [{ code, message, path?, patchLine? }]`; the',
    'CLI prints them as `warning <code>: <message>`. Codes are stable like error codes (the',
    '`WarningCode` type is their union):',
    '',
    '| code | meaning |',
    '|---|---|',
    ...warnings,
    '',
    'A journal transaction that was not acted on (untrusted, corrupt, an unsafe path) or whose',
    'rollback failed is reported as `journal.` and the error code that refused it, without its',
    '`JOURNAL_` prefix, in lower case with `-` for `_`: `journal.untrusted`, `journal.corrupt`,',
    '`journal.unsafe-path`, `journal.no-space`, `journal.permission-denied`, ... The message says',
    "what to do, as the error code's hint above does.",
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
