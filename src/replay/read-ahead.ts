// A child's stdout read ahead of its consumer: chunks are taken from the pipe whenever the event
// loop turns, into a queue of at most `aheadBytes` (then the pipe is paused and the writer waits),
// so a process like git keeps writing while the consumer computes. The consumer must let the
// loop turn now and then (Turns), or nothing is read until it waits for a chunk. Memory is
// bounded by `aheadBytes` plus one chunk. Errors of the stream are thrown in order.
import type { Readable } from 'node:stream'

/** The stream's chunks, in order, read from now on; reading ahead stops at `aheadBytes` queued. */
export function readAhead(stream: Readable, aheadBytes: number): AsyncGenerator<Uint8Array> {
  const queue: Uint8Array[] = []
  let queued = 0
  let ended = false
  let failed = null as { error: unknown } | null
  let wake: (() => void) | null = null
  const rouse = (): void => {
    wake?.()
    wake = null
  }
  const onData = (chunk: Uint8Array): void => {
    queue.push(chunk)
    queued += chunk.length
    if (queued >= aheadBytes) stream.pause()
    rouse()
  }
  const onEnd = (): void => {
    ended = true
    rouse()
  }
  const onError = (error: unknown): void => {
    failed ??= { error }
    rouse()
  }
  stream.on('data', onData)
  stream.once('end', onEnd)
  stream.once('close', onEnd)
  stream.once('error', onError)
  async function* chunks(): AsyncGenerator<Uint8Array> {
    try {
      for (;;) {
        const chunk = queue.shift()
        if (chunk === undefined) {
          if (failed !== null) throw failed.error
          if (ended) return
          await new Promise<void>((resolve) => (wake = resolve))
          continue
        }
        queued -= chunk.length
        if (stream.isPaused() && queued < aheadBytes) stream.resume()
        yield chunk
      }
    } finally {
      stream.off('data', onData)
      stream.off('end', onEnd)
      stream.off('close', onEnd)
      stream.off('error', onError)
    }
  }
  return chunks()
}

/** Lets the event loop turn (its I/O read) once at least `everyMs` have passed since the last. */
export class Turns {
  #last = performance.now()
  readonly #everyMs: number

  constructor(everyMs: number) {
    this.#everyMs = everyMs
  }

  /** Resolves at once, or after one turn of the event loop when one is due. */
  async maybe(): Promise<void> {
    if (performance.now() - this.#last < this.#everyMs) return
    await new Promise<void>((resolve) => setImmediate(resolve))
    this.#last = performance.now()
  }

  /** The consumer waited anyway: the loop has just turned. */
  turned(): void {
    this.#last = performance.now()
  }
}
