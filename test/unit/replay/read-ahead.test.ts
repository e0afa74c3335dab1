// readAhead against a real child process and a real stream: the child's output is taken from the
// pipe while the consumer holds a chunk (the child finishes writing far more than a pipe holds),
// reading stops at the window (the child stays blocked), every byte arrives in order, and a
// stream error comes after the chunks queued before it. Turns lets the event loop turn only
// when one is due.
import { spawn } from 'node:child_process'
import { PassThrough, type Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { readAhead, Turns } from '../../../src/replay/read-ahead.js'

const TOTAL = 4 * 1024 * 1024

/** A child writing TOTAL bytes (byte i is i mod 251) to its stdout, and whether it has exited. */
function writer() {
  const script = `const b = Buffer.alloc(${TOTAL}); for (let i = 0; i < b.length; i++) b[i] = i % 251; process.stdout.write(b)`
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
  let exited = false
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true
      resolve()
    }),
  )
  return { stdout: child.stdout as Readable, exit, exited: () => exited }
}

function checkBytes(chunks: readonly Uint8Array[]): void {
  const all = Buffer.concat(chunks)
  expect(all.length).toBe(TOTAL)
  for (let i = 0; i < all.length; i += 4099) expect(all[i]).toBe(i % 251)
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('readAhead', () => {
  it('drains the pipe while the consumer holds a chunk, and delivers every byte in order', async () => {
    const child = writer()
    const chunks: Uint8Array[] = []
    for await (const chunk of readAhead(child.stdout, 2 * TOTAL)) {
      chunks.push(chunk)
      // Holding the first chunk: the child can only finish if its output is read meanwhile.
      if (chunks.length === 1) await child.exit
    }
    checkBytes(chunks)
  })

  it('stops reading at the window, so the writer waits until the consumer takes more', async () => {
    const child = writer()
    const chunks: Uint8Array[] = []
    for await (const chunk of readAhead(child.stdout, 256 * 1024)) {
      chunks.push(chunk)
      if (chunks.length > 1) continue
      for (let turn = 0; turn < 20 && !child.exited(); turn++) await pause(10)
      expect(child.exited()).toBe(false)
    }
    await child.exit
    checkBytes(chunks)
  })

  it('throws the stream’s error after the chunks that came before it', async () => {
    const stream = new PassThrough()
    stream.write(Buffer.from('one'))
    stream.write(Buffer.from('two'))
    setImmediate(() => stream.destroy(new Error('broken pipe')))
    const seen: string[] = []
    await expect(
      (async () => {
        for await (const chunk of readAhead(stream, 1024)) seen.push(Buffer.from(chunk).toString())
      })(),
    ).rejects.toThrow('broken pipe')
    expect(seen.join('')).toBe('onetwo')
  })
})

describe('Turns', () => {
  it('lets the event loop turn when one is due, and not before', async () => {
    let ran = false
    setImmediate(() => (ran = true))
    await new Turns(60_000).maybe()
    expect(ran).toBe(false)
    await new Turns(0).maybe()
    expect(ran).toBe(true)
  })
})
