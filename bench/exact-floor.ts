// A second floor for large.bench's check rows: what verifying a plain `git diff` costs in JS
// when no line strings or line objects are made. Not patchloom's code path and not a patch tool:
// a measuring stick for a possible fast path. One pass per section reads the hunk headers and
// body lines by offsets into the patch text, compares each context and removed line with the
// file's bytes at the line the hunk states, copies the output with Buffer.copy and hashes the file
// before and after (SHA-256), with the syscalls the engine makes for a file (an lstat of its
// directory, stat, open, fstat, two reads, close). It handles only what the large bench
// generates: ASCII, LF, exact hunks, files that exist; anything else is counted as a mismatch.
//
// Usage, in the repository: `node dist/bench/exact-floor.js CHANGE.diff [--verify]`. Prints the
// files, the mismatches and the time per file of the pass. --verify also runs `engine.check`
// (blockingReads, no pool) and exits 1 unless every file's new hash equals the engine's.
import { hash } from 'node:crypto'
import {
  closeSync,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
} from 'node:fs'
import path from 'node:path'
import { createEngine } from '../src/index.js'

const LF = 10
const DIGIT_0 = 48

interface Pass {
  readonly files: number
  readonly mismatches: number
  readonly afterHashes: string[]
}

function verifySections(diff: string, root: string): Pass {
  const afterHashes: string[] = []
  let mismatches = 0
  for (let at = diff.indexOf('diff --git a/'); at !== -1;) {
    const next = diff.indexOf('\ndiff --git a/', at + 1)
    const end = next === -1 ? diff.length : next + 1
    const plus = diff.indexOf('\n+++ b/', at)
    const pathEnd = diff.indexOf('\n', plus + 7)
    const abs = path.join(root, diff.slice(plus + 7, pathEnd))
    lstatSync(path.dirname(abs))
    statSync(abs)
    const fd = openSync(abs, 'r')
    const size = Number(fstatSync(fd, { bigint: true }).size)
    const source = Buffer.allocUnsafe(size)
    readSync(fd, source, 0, size, null)
    readSync(fd, Buffer.allocUnsafe(1), 0, 1, null)
    closeSync(fd)
    hash('sha256', source)
    const out = Buffer.allocUnsafe(size + (end - at))
    let written = 0
    let copied = 0 // source bytes [0, copied) are laid out
    let line = 1 // the source line that starts at `pos`
    let pos = 0
    for (let h = diff.indexOf('\n@@ -', pathEnd); h !== -1 && h < end;) {
      let k = h + 5
      let start = 0
      while (diff.charCodeAt(k) >= DIGIT_0 && diff.charCodeAt(k) <= DIGIT_0 + 9)
        start = start * 10 + diff.charCodeAt(k++) - DIGIT_0
      while (line < start) {
        pos = source.indexOf(LF, pos) + 1
        line++
      }
      let p = diff.indexOf('\n', k) + 1
      for (; p < end;) {
        const op = diff.charCodeAt(p)
        if (op !== 32 && op !== 45 && op !== 43) break // ' ', '-', '+'
        const lineEnd = diff.indexOf('\n', p)
        const length = lineEnd - p - 1
        if (op === 43) {
          source.copy(out, written, copied, pos)
          written += pos - copied
          copied = pos
          written += out.write(diff.slice(p + 1, lineEnd + 1), written, 'latin1')
        } else {
          for (let i = 0; i < length; i++)
            if (source[pos + i] !== diff.charCodeAt(p + 1 + i)) {
              mismatches++
              break
            }
          if (source[pos + length] !== LF) mismatches++
          const after = pos + length + 1
          if (op === 45) {
            source.copy(out, written, copied, pos)
            written += pos - copied
            copied = after
          }
          pos = after
          line++
        }
        p = lineEnd + 1
      }
      h = diff.indexOf('\n@@ -', p - 1)
    }
    source.copy(out, written, copied, size)
    written += size - copied
    afterHashes.push(hash('sha256', out.subarray(0, written)))
    at = next === -1 ? -1 : next + 1
  }
  return { files: afterHashes.length, mismatches, afterHashes }
}

const [file, ...flags] = process.argv.slice(2)
if (file === undefined) throw new Error('usage: exact-floor.js CHANGE.diff [--verify]')
const diff = readFileSync(file, 'latin1')
const started = performance.now()
const pass = verifySections(diff, process.cwd())
const elapsed = performance.now() - started
console.log(
  `${pass.files} files, ${pass.mismatches} mismatches, ` +
    `${((elapsed * 1000) / pass.files).toFixed(1)} us per file (${elapsed.toFixed(0)} ms)`,
)
if (flags.includes('--verify')) {
  const engine = createEngine({ root: process.cwd(), workers: false, blockingReads: true })
  try {
    const result = await engine.check(readFileSync(file), { format: 'unified', diffs: false })
    const same = result.files.filter(
      (f, i) => f.afterHash === `sha256:${pass.afterHashes[i] ?? ''}`,
    ).length
    console.log(`after hashes equal to engine.check's: ${same} of ${result.files.length}`)
    if (same !== result.files.length || pass.mismatches !== 0) process.exitCode = 1
  } finally {
    await engine.close()
  }
}
