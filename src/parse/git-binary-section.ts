// The `GIT binary patch` section of a git diff (`git diff --binary`): one forward and an optional
// reverse `literal`/`delta` hunk of base85 lines, kept deflated. Also the `Binary files X and Y
// differ` line, which names a binary change but carries no data. Decoding a base85 line is
// base85.ts; inflating and applying the data is src/apply/git-binary.ts.
//
//   binary   = "GIT binary patch" NL bin-hunk [ bin-hunk ]
//   bin-hunk = ("literal" | "delta") " " size NL { base85-line NL } [ "" NL ]
import { errorData, type EditErrorData } from '../errors.js'
import { fail, ok, type Result } from '../result.js'
import type { BinaryHunk, BinaryPatch } from '../types.js'
import { decodeBase85Line } from './base85.js'
import { clip } from './unified-names.js'

const BINARY_DIFFER_RE = /^Binary files (.+) and (.+) differ$/
const BINARY_HUNK_RE = /^(literal|delta) (\d+)$/

/** Parses the section whose `GIT binary patch` line is at `start`; `path` labels errors. */
export function parseGitBinarySection(
  lines: readonly string[],
  start: number,
  path: string,
): Result<{ patch: BinaryPatch; next: number }> {
  const forward = parseBinaryHunk(lines, start + 1, path)
  if (!forward.ok) return forward
  let next = forward.value.next
  if (!BINARY_HUNK_RE.test(lines[next] ?? '')) {
    return ok({ patch: { forward: forward.value.hunk }, next })
  }
  const reverse = parseBinaryHunk(lines, next, path)
  if (!reverse.ok) return reverse
  next = reverse.value.next
  return ok({ patch: { forward: forward.value.hunk, reverse: reverse.value.hunk }, next })
}

function parseBinaryHunk(
  lines: readonly string[],
  start: number,
  path: string,
): Result<{ hunk: BinaryHunk; next: number }> {
  const header = lines[start] ?? ''
  const match = BINARY_HUNK_RE.exec(header)
  if (match === null) {
    return fail(
      errorData(
        'PARSE_BAD_BINARY',
        `The binary hunk header "${clip(header)}" for ${path} at patch line ${start + 1} is not "literal N" or "delta N".`,
        { path, patchLine: start + 1 },
      ),
    )
  }
  const parts: Uint8Array[] = []
  let total = 0
  let index = start + 1
  // Data runs to a blank line; a following `diff ` line also ends it, in case the blank was lost.
  for (; index < lines.length; index++) {
    const line = lines[index] as string
    if (line === '' || line.startsWith('diff ')) break
    const decoded = decodeBase85Line(line)
    if (!decoded.ok) {
      const message = `${decoded.error.message.replace(/\.$/, '')} (${path}, patch line ${index + 1}).`
      return fail({ ...decoded.error, message, path, patchLine: index + 1 })
    }
    parts.push(decoded.value)
    total += decoded.value.length
  }
  if (parts.length === 0) {
    return fail(
      errorData(
        'PARSE_BAD_BINARY',
        `The binary hunk for ${path} at patch line ${start + 1} has no data lines.`,
        { path, patchLine: start + 1 },
      ),
    )
  }
  if (lines[index] === '') index++
  const deflated = new Uint8Array(total)
  let offset = 0
  for (const part of parts) {
    deflated.set(part, offset)
    offset += part.length
  }
  const method = match[1] === 'delta' ? 'delta' : 'literal'
  return ok({ hunk: { method, inflatedSize: Number(match[2]), deflated }, next: index })
}

/** True for `Binary files X and Y differ`, a diff made without --binary. */
export function isBinaryWithoutData(line: string): boolean {
  return BINARY_DIFFER_RE.test(line)
}

/** The path a `Binary files A and B differ` line names: B's, or A's when B is /dev/null. */
export function binaryWithoutDataPath(line: string): string | null {
  const match = BINARY_DIFFER_RE.exec(line)
  if (match === null) return null
  const name = match[2] === '/dev/null' ? (match[1] as string) : (match[2] as string)
  return name.replace(/^[ab]\//, '')
}

export function binaryWithoutData(line: string, index: number, path?: string): EditErrorData {
  return errorData(
    'PARSE_BAD_BINARY',
    `Patch line ${index + 1} says "${clip(line)}" but carries no binary data.`,
    {
      hint: 'Regenerate the diff with `git diff --binary` so it carries the binary data.',
      patchLine: index + 1,
      ...(path === undefined ? {} : { path }),
    },
  )
}
