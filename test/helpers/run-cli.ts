// Runs the built CLI (bin/patchloom.js -> the dist/cli bundle) as a child process, the way an agent does:
// patch on stdin or as a file, then exit status, stdout, stderr and the one JSON line. No vitest
// imports, so any runner can use it. Needs `npm run build` first; says so when dist/ is missing.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const CLI_BIN = fileURLToPath(new URL('../../bin/patchloom.js', import.meta.url))
const BUILT_MAIN = fileURLToPath(new URL('../../dist/cli/main.cjs', import.meta.url))

export interface CliRun {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

export interface RunCliOptions {
  /** Written to the child's stdin (a string as UTF-8, bytes as they are), then closed. */
  readonly stdin?: string | Uint8Array
  readonly cwd?: string
  /** Added to this process's environment for the child. */
  readonly env?: Readonly<Record<string, string>>
}

/** Spawns `node bin/patchloom.js ...args` and resolves when it exits. */
export function runCli(args: readonly string[], options: RunCliOptions = {}): Promise<CliRun> {
  if (!existsSync(BUILT_MAIN)) {
    const message = `run-cli: ${BUILT_MAIN} is missing; run \`npm run build\` first`
    return Promise.reject(new Error(message))
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], {
      cwd: options.cwd ?? process.cwd(),
      ...(options.env === undefined ? {} : { env: { ...process.env, ...options.env } }),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk))
    child.on('error', reject)
    child.on('close', (code, signal) => {
      if (code === null) {
        reject(new Error(`run-cli: the CLI was killed by ${signal ?? 'a signal'}`))
        return
      }
      resolve({
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      })
    })
    // A child that exits before reading stdin (e.g. --help) closes the pipe; that is not an error.
    child.stdin.on('error', () => undefined)
    child.stdin.end(options.stdin ?? '')
  })
}

/**
 * The single JSON line a `--json` run prints. Throws when stdout is not exactly one
 * newline-terminated line of JSON, because that contract is what agents rely on.
 */
export function jsonLine(run: CliRun): Record<string, unknown> {
  const lines = run.stdout.split('\n')
  if (lines.length !== 2 || lines[1] !== '') {
    const got = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`
    throw new Error(`run-cli: expected exactly one line on stdout, got\n${got}`)
  }
  const value: unknown = JSON.parse(lines[0] ?? '')
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`run-cli: the JSON line is not an object: ${lines[0] ?? ''}`)
  }
  return value as Record<string, unknown>
}
