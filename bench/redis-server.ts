// A real redis-server for the queue tests and bench/distributed.bench.ts: the Debian package,
// started on a free loopback port with no persistence, in its own temp directory, and stopped
// afterwards. Tests that need it
// skip with REDIS_SKIP_REASON when redis-server is not on PATH (.ci/run installs it).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'

export const REDIS_AVAILABLE =
  spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0

export const REDIS_SKIP_REASON =
  'redis-server is not on PATH (Debian package redis-server; .ci/run installs it)'

export interface RunningRedis {
  readonly port: number
  /** redis://127.0.0.1:PORT/0 */
  readonly url: string
  readonly process: ChildProcess
  /** Stops the server and starts a new one on the same port: with no persistence, empty. */
  restart(): Promise<void>
  stop(): Promise<void>
}

/** A port nothing listens on right now (the kernel's choice, released at once). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port')),
      )
    })
  })
}

/** Spawns redis-server on `port` and resolves once it accepts connections. */
async function spawnRedis(
  port: number,
  dir: string,
  extraArgs: readonly string[],
): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      ...extraArgs,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let output = ''
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`redis-server did not start in 10 s:\n${output}`)),
      10_000,
    )
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`redis-server exited with ${String(code)}:\n${output}`))
    })
  })
  return child
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

/** Starts redis-server and resolves once it accepts connections. */
export async function startRedis(extraArgs: readonly string[] = []): Promise<RunningRedis> {
  const dir = await mkdtemp(path.join(tmpdir(), 'patchloom-redis-'))
  const port = await freePort()
  let child = await spawnRedis(port, dir, extraArgs)
  return {
    port,
    url: `redis://127.0.0.1:${port}/0`,
    get process() {
      return child
    },
    restart: async () => {
      await stopChild(child)
      child = await spawnRedis(port, dir, extraArgs)
    },
    stop: async () => {
      await stopChild(child)
      await rm(dir, { recursive: true, force: true })
    },
  }
}
