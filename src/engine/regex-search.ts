// The RegexSearcher that apply and check give the pure core (src/apply/regex.ts, D-091): runs a
// regex edit's pattern over a file's text inside a node:vm context with a timeout, because a
// backtracking pattern such as (a+)+$ can run for minutes and nothing else can stop a RegExp in
// the thread running it (vm's watchdog terminates the script, regex included; pinned by
// test/unit/engine/regex-search.test.ts). One context per thread, made on first use; the
// text is handed in as a global of that context (no copy) and the matches come back as JSON, so
// no object of the other realm leaks out.
import { createContext, Script, type Context } from 'node:vm'
import type { RegexMatch, RegexSearch, RegexSearcher } from '../apply/regex.js'

/** How long one regex edit's search may run before it fails with MATCH_REGEX_TIMEOUT. */
export const REGEX_TIMEOUT_MS = 100

// Runs in the context: $text, $source and $flags are its inputs. Captures that did not take part
// are null in JSON; they are turned back into undefined below.
const SEARCH = new Script(
  `(() => {
    const found = []
    for (const m of $text.matchAll(new RegExp($source, $flags + 'g'))) {
      const entry = { start: m.index, end: m.index + m[0].length, captures: m.slice(1) }
      if (m.groups !== undefined) entry.named = m.groups
      found.push(entry)
      // The core refuses a match of the empty string; a pattern like a* would otherwise report
      // one per character of the file.
      if (m[0] === '') break
    }
    return JSON.stringify(found)
  })()`,
  { filename: 'patchloom-regex-search.js' },
)

let context: Context | undefined

interface RawMatch {
  start: number
  end: number
  captures: (string | null)[]
  named?: Record<string, string | null>
}

/** The searcher with a given bound (tests use a short one); `searchRegex` is the default. */
export function boundedSearcher(timeoutMs: number): RegexSearcher {
  return (text, source, flags): RegexSearch => {
    context ??= createContext(Object.create(null) as object)
    const sandbox = context as Record<string, unknown>
    sandbox['$text'] = text
    sandbox['$source'] = source
    sandbox['$flags'] = flags
    let json: unknown
    try {
      json = SEARCH.runInContext(context, { timeout: timeoutMs })
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
        return { ok: false, timeoutMs }
      }
      // The parser compiled the pattern already (src/parse/edits.ts): any other throw is a bug.
      throw new Error(
        `regex-search: cannot search after a compiled pattern threw: ${String(error)}`,
      )
    } finally {
      // Do not keep a large file alive in the context between searches.
      sandbox['$text'] = ''
    }
    const raw = JSON.parse(json as string) as RawMatch[]
    return { ok: true, matches: raw.map(toMatch) }
  }
}

function toMatch(raw: RawMatch): RegexMatch {
  const captures = raw.captures.map((c) => c ?? undefined)
  if (raw.named === undefined) return { start: raw.start, end: raw.end, captures }
  const named: Record<string, string | undefined> = {}
  for (const [name, value] of Object.entries(raw.named)) named[name] = value ?? undefined
  return { start: raw.start, end: raw.end, captures, named }
}

export const searchRegex: RegexSearcher = boundedSearcher(REGEX_TIMEOUT_MS)
