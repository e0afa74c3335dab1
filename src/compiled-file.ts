// Locates a compiled worker entry (the engine's Piscina worker, the sidecar pool's thread).
// Code running from dist/ finds it beside itself; tests running the TypeScript sources use the
// compiled copy under dist/, so `npm run build` must have run. The CLI bundle (dist/cli/*.js,
// D-090) sits two levels below the root like src/cli/, so it takes the same fallback as the
// sources: the callers' second candidate (../../dist/...) is the one it finds.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The first of `candidates` that exists on disk; throws naming `what` when none does. */
export function compiledFile(candidates: readonly URL[], what: string): string {
  for (const url of candidates) {
    const file = fileURLToPath(url)
    if (existsSync(file)) return file
  }
  throw new Error(`cannot find ${what}; run \`npm run build\` first`)
}
