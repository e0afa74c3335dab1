#!/usr/bin/env node
'use strict'
// Process shim for the CLI: wires the real stdin/stdout/stderr and cwd to main() and turns its
// result into the exit status. All behaviour lives in src/cli/main.ts so it can be tested
// in-process.
//
// Start-up is most of a one-shot run's cost (issue #9, D-090), so this file is CommonJS
// (bin/package.json) and main() comes from one file, dist/cli/main.cjs: the esbuild bundle of
// the CLI that `npm run build` makes. No ES module graph is loaded on the way. The bundle is
// compiled with V8's code cache from dist/cli/main.cjs.cache, which the build writes after
// sample runs (src/cli/bundle.ts); V8 checks the cache against the source and its own
// version and flags, and a rejected or missing cache only means an ordinary compile.
const { readFileSync } = require('node:fs')
const { dirname, join } = require('node:path')
const vm = require('node:vm')
const { createRequire, wrap } = require('node:module')

const BUNDLE = join(__dirname, '..', 'dist', 'cli', 'main.cjs')

/** The bundle's exports, compiled with the code cache when there is one. */
function loadBundle() {
  // node --enable-source-maps maps stack traces to src/*.ts for require()d files, not vm scripts.
  if (process.sourceMapsEnabled === true) return require(BUNDLE)
  let cachedData
  try {
    cachedData = readFileSync(`${BUNDLE}.cache`)
  } catch {
    // No cache (a build without one): compile the ordinary way.
  }
  // The same wrapper and file name as src/cli/bundle.ts used to make the cache.
  const script = new vm.Script(wrap(readFileSync(BUNDLE, 'utf8')), { filename: BUNDLE, cachedData })
  const module = { exports: {} }
  const load = script.runInThisContext()
  load.call(module.exports, module.exports, createRequire(BUNDLE), module, BUNDLE, dirname(BUNDLE))
  return module.exports
}

// The stream itself: main() reads it as bytes and stops at --max-patch-bytes (#8).
function readStdin() {
  if (process.stdin.isTTY) {
    process.stderr.write('patchloom: reading the patch from stdin (end with Ctrl-D)\n')
  }
  return process.stdin
}

// A reader that goes away (`patchloom check --json | head -c 100`) ends our output, not the run:
// later writes are dropped and the exit status is still the command's, where an unhandled EPIPE
// used to crash the process.
const closed = new Set()
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error
    closed.add(stream)
  })
}
const writeTo = (stream) => (s) => {
  if (!closed.has(stream)) stream.write(s)
}

loadBundle()
  .main(process.argv.slice(2), {
    stdin: readStdin,
    stdout: writeTo(process.stdout),
    stderr: writeTo(process.stderr),
    stderrIsTTY: process.stderr.isTTY === true,
    // Waits while stdout's buffer is full (a reader slower than batch); a closed stdout never is.
    drained: () =>
      closed.has(process.stdout) || !process.stdout.writableNeedDrain
        ? Promise.resolve()
        : new Promise((resolve) => {
            const events = ['drain', 'error', 'close']
            const done = () => {
              for (const event of events) process.stdout.off(event, done)
              resolve()
            }
            for (const event of events) process.stdout.on(event, done)
          }),
    cwd: process.cwd(),
  })
  .then((code) => {
    process.exitCode = code
  })
