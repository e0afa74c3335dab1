// Runs one of test/examples/<name>.mjs with `node` in scripted mode (the provider's key env var
// removed) and resolves with its exit code and output. The examples import the built package
// through its own exports, so `npm run build` comes first.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export interface ExampleRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Spawns `node test/examples/<name>.mjs` without `keyVar` in its environment. */
export function runExample(name: string, keyVar: string): Promise<ExampleRun> {
  const example = fileURLToPath(new URL(`../examples/${name}.mjs`, import.meta.url))
  const env = { ...process.env }
  delete env[keyVar]
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [example], { env, timeout: 60_000 })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}
