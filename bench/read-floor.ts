// A floor for large.bench's check rows: what node itself needs to read and hash the files a
// `git diff` touches, with nothing parsed, matched or spliced. Two worker threads each read half
// the files (readFileSync) and hash each once (SHA-256), as patchloom's workers do. Usage, in the
// repository: `node dist/bench/read-floor.js CHANGE.diff [THREADS]`. Prints the files and bytes.
import { hash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'

/** The b/ side path of every `diff --git a/X b/X` line (the bench's paths have no spaces). */
function touchedPaths(diff: string): string[] {
  const paths: string[] = []
  for (let at = diff.indexOf('diff --git a/'); at !== -1; at = diff.indexOf('diff --git a/', at)) {
    const end = diff.indexOf('\n', at)
    const line = diff.slice(at, end === -1 ? undefined : end)
    paths.push(line.slice(line.indexOf(' b/') + 3))
    at = end === -1 ? diff.length : end
  }
  return paths
}

if (isMainThread) {
  const [file, threadsArg] = process.argv.slice(2)
  if (file === undefined) throw new Error('usage: read-floor.js CHANGE.diff [THREADS]')
  const paths = touchedPaths(readFileSync(file, 'utf8'))
  const threads = Number(threadsArg ?? 2)
  const per = Math.ceil(paths.length / threads)
  const totals = await Promise.all(
    Array.from(
      { length: threads },
      (_, i) =>
        new Promise<number>((resolve, reject) => {
          const worker = new Worker(new URL(import.meta.url), {
            workerData: paths.slice(i * per, (i + 1) * per),
          })
          worker.once('message', (bytes: number) => resolve(bytes))
          worker.once('error', reject)
        }),
    ),
  )
  console.log(`${paths.length} files, ${totals.reduce((a, b) => a + b, 0)} bytes read and hashed`)
} else {
  let bytes = 0
  for (const p of workerData as string[]) {
    const data = readFileSync(p)
    hash('sha256', data)
    bytes += data.length
  }
  parentPort?.postMessage(bytes)
}
