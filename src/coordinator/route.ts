// Inline-or-pool decision. A worker round trip costs a structured clone of the job both ways plus
// a message hop, and the coordinator still reads and hashes every file itself, so small requests
// are verified in the calling thread. The thresholds come from bench/pool.bench.ts (bench/
// RESULTS.md): on a 2-core machine the pool breaks even near 16 files / 0.6 MiB and wins ~15% at
// 64 files / 6 MiB, so requests go to it only when they are clearly past break-even. More cores
// move the crossover down; re-run the bench on the target machine and pass pool.inlineMaxBytes.
// The byte defaults live in config.ts (configuration sits below the router, #8); the file count
// is not configurable and stays here.

export type Route = 'inline' | 'pool'

/** A request must touch at least this many files to be verified in parallel. */
export const MIN_POOL_FILES = 8

export function routeCompute(totalBytes: number, fileCount: number, inlineMaxBytes: number): Route {
  return fileCount >= MIN_POOL_FILES && totalBytes >= inlineMaxBytes ? 'pool' : 'inline'
}

export function routeParse(textLength: number, inlineParseMaxBytes: number): Route {
  return textLength >= inlineParseMaxBytes ? 'pool' : 'inline'
}
