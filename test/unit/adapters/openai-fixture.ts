// Shared by the OpenAI adapter's tests: a temporary workspace with an engine, content hashes,
// and a scripted fetch for the OpenAI client that answers responses.create with scripted
// Responses payloads and checks each request's input against what the test expects.
import { createHash } from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createEngine, type Engine } from '../../../src/index.js'

export interface TestWorkspace {
  readonly root: string
  readonly engine: Engine
  /** The file's bytes as text, or null when it does not exist. */
  read(rel: string): Promise<string | null>
  close(): Promise<void>
}

export async function workspace(files: Readonly<Record<string, string>>): Promise<TestWorkspace> {
  const root = await mkdtemp(path.join(tmpdir(), 'patchloom-openai-'))
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true })
    await writeFile(path.join(root, rel), text)
  }
  const engine = createEngine({ root, workers: false, durability: 'fast' })
  return {
    root,
    engine,
    read: (rel) => readFile(path.join(root, rel), 'utf8').catch(() => null),
    close: async () => {
      await engine.close()
      await rm(root, { recursive: true, force: true })
    },
  }
}

export function hashOf(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`
}

/** The newest transaction's id (the one a just-committed write made). */
export async function lastTransaction(engine: Engine): Promise<string> {
  const [newest] = await engine.transactions()
  if (newest === undefined) throw new Error('no transaction in the journal')
  return newest.id
}

/** One model turn: the output items it answers with, and the input it expects to receive. */
export interface ScriptStep {
  /** The exact `input` of the request this step answers (called when the request arrives). */
  readonly expectInput?: () => unknown | Promise<unknown>
  readonly output: readonly unknown[]
}

/**
 * A fetch for `new OpenAI({ fetch })` that plays `steps` in order. A request whose input is not
 * the step's expected one is answered with a 400, so the client call rejects, and recorded.
 */
export function scriptedFetch(steps: readonly ScriptStep[]): {
  fetch: typeof fetch
  requests: Record<string, unknown>[]
  /** Each request whose input was not the expected one (the test asserts there are none). */
  mismatches: { expected: unknown; received: unknown }[]
} {
  const requests: Record<string, unknown>[] = []
  const mismatches: { expected: unknown; received: unknown }[] = []
  const scripted = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const body = JSON.parse(String(init?.body)) as Record<string, unknown>
    requests.push(body)
    const step = steps[requests.length - 1]
    if (!String(url).endsWith('/responses') || step === undefined) {
      return json(400, { error: { message: `unscripted request ${requests.length} to ${url}` } })
    }
    const expected = await step.expectInput?.()
    if (step.expectInput !== undefined && !isDeepStrictEqual(body['input'], expected)) {
      mismatches.push({ expected, received: body['input'] })
      return json(400, {
        error: { message: `request ${requests.length}: input differs from the script` },
      })
    }
    return json(200, {
      id: `resp_${requests.length}`,
      object: 'response',
      created_at: 0,
      status: 'completed',
      model: String(body['model']),
      output: step.output,
      parallel_tool_calls: true,
      tool_choice: 'auto',
      tools: body['tools'] ?? [],
      error: null,
      incomplete_details: null,
      instructions: null,
      metadata: {},
      temperature: null,
      top_p: null,
    })
  }
  return { fetch: scripted as typeof fetch, requests, mismatches }
}

function json(status: number, value: unknown): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { 'content-type': 'application/json' },
  })
}

/** An assistant message item, the turn that ends a loop. */
export function message(text: string): Record<string, unknown> {
  return {
    type: 'message',
    id: 'msg_1',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text, annotations: [] }],
  }
}
