// Inline-or-pool decision. A worker round trip costs a structured clone of the job both ways plus
// a message hop (tens to hundreds of microseconds), so small requests are verified in the calling
// thread. The thresholds come from bench/pool.bench.ts; see bench/RESULTS.md for the numbers.

export type Route = 'inline' | 'pool'

/** Requests (patch text plus the bytes of the files they touch) below this stay inline. */
export const DEFAULT_INLINE_MAX_BYTES = 256 * 1024

/** A request must touch at least this many files to be verified in parallel. */
export const MIN_POOL_FILES = 2

/** Patch text longer than this is parsed in a worker, keeping the event loop free. */
export const DEFAULT_INLINE_PARSE_MAX_BYTES = 1024 * 1024

export function routeCompute(totalBytes: number, fileCount: number, inlineMaxBytes: number): Route {
  return fileCount >= MIN_POOL_FILES && totalBytes >= inlineMaxBytes ? 'pool' : 'inline'
}

export function routeParse(textLength: number, inlineParseMaxBytes: number): Route {
  return textLength >= inlineParseMaxBytes ? 'pool' : 'inline'
}
