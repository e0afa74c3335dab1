// The process the crash harness kills (bench/crash-harness.ts spawns it; never run by hand). It
// opens an engine on one workspace and either applies one patch or runs recovery, tracing every
// instrumented journal point and every journal filesystem call to stdout as it passes, so the
// parent knows where a kill landed. With `kill` it SIGKILLs itself at exactly that point, or
// right after that call returns; otherwise the parent kills it whenever it likes. Lines are
// written with writeSync: they reach the pipe before any kill can lose them.
// Protocol (one line each): `start`, `point <name> <index> <ms>`, `call <n> <method> <path>`,
// `done <ms>`, `error <json>`; <ms> counts from `start`, <n> from 1, <path> is root-relative.
import { writeSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { createEngineWithInternals } from '../src/engine/engine.js'
import { nodeJournalFs, type JournalFs } from '../src/journal/fs.js'
import type { Durability, JournalPoint } from '../src/journal/records.js'

/** Where the child kills itself: at a journal point, or after its nth journal filesystem call. */
export type Kill =
  { readonly point: JournalPoint; readonly index: number } | { readonly call: number }

/** What the parent asks for, passed as one JSON argument. */
export interface ChildRequest {
  readonly root: string
  readonly mode: 'apply' | 'recover'
  /** apply: the Codex patch to apply. */
  readonly patchPath?: string
  readonly durability: Durability
  readonly kill?: Kill
}

function say(line: string): void {
  writeSync(1, line + '\n')
}

/** nodeJournalFs with every call counted and traced; the kill fires when the call settles. */
function countingFs(root: string, killAfterCall: number | undefined): JournalFs {
  let calls = 0
  const show = (arg: unknown): string =>
    typeof arg === 'string' ? path.relative(root, arg).split(path.sep).join('/') || '.' : '-'
  const wrapped: Record<string, unknown> = {}
  for (const [method, fn] of Object.entries(nodeJournalFs)) {
    const call = fn as (...args: unknown[]) => Promise<unknown>
    wrapped[method] = async (...args: unknown[]) => {
      try {
        return await call(...args)
      } finally {
        calls++
        say(`call ${calls} ${method} ${show(args[0])}`)
        if (calls === killAfterCall) process.kill(process.pid, 'SIGKILL')
      }
    }
  }
  return wrapped as unknown as JournalFs
}

async function main(): Promise<void> {
  const request = JSON.parse(process.argv[2] ?? '') as ChildRequest
  const patch = request.patchPath === undefined ? '' : await readFile(request.patchPath, 'utf8')
  const kill = request.kill
  let startMs = 0
  const since = (): string => (performance.now() - startMs).toFixed(3)
  const engine = createEngineWithInternals(
    { root: request.root, durability: request.durability, workers: false },
    {
      journalFs: countingFs(
        request.root,
        kill !== undefined && 'call' in kill ? kill.call : undefined,
      ),
      journalHooks: {
        at: (point, index) => {
          say(`point ${point} ${index} ${since()}`)
          if (kill !== undefined && 'point' in kill && kill.point === point && kill.index === index)
            process.kill(process.pid, 'SIGKILL')
        },
      },
    },
  )
  say('start')
  startMs = performance.now()
  if (request.mode === 'apply') await engine.apply(patch, { format: 'codex' })
  else await engine.recover()
  say(`done ${since()}`)
  await engine.close()
}

main().catch((error: unknown) => {
  const data =
    error instanceof Error
      ? { name: error.name, message: error.message, code: (error as { code?: unknown }).code }
      : { message: String(error) }
  say(`error ${JSON.stringify(data)}`)
  process.exitCode = 1
})
