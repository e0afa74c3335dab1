#!/usr/bin/env node
// Process shim for the CLI: wires the real stdin/stdout/stderr and cwd to main() and turns its
// result into the exit status. All behaviour lives in src/cli/main.ts so it can be tested
// in-process. main() comes from dist/cli/main.js, the esbuild bundle of the CLI that
// `npm run build` makes (D-090): one module to load instead of about 70, which was most of the
// CLI's start-up.
import { main } from '../dist/cli/main.js'

// The stream itself: main() reads it as bytes and stops at --max-patch-bytes (#8).
function readStdin() {
  if (process.stdin.isTTY) {
    process.stderr.write('patchloom: reading the patch from stdin (end with Ctrl-D)\n')
  }
  return process.stdin
}

process.exitCode = await main(process.argv.slice(2), {
  stdin: readStdin,
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  cwd: process.cwd(),
})
