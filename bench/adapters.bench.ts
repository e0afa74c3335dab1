// What the framework adapters add to a one-hunk update: each adapter's call against the engine
// call it stands for, on one warm engine and journal, in one process. Each side has its own copy
// of one 200-line file (so the adapter's memory of its file stays current) and every call commits
// a real change, turning `value = 1` into `value = 2` or back; the two sides' calls alternate.
// The figure is the difference of the two medians (and their ratio), measured in the same run.
// Run: npm run bench:adapters, or npm run build && node dist/bench/adapters.bench.js [--calls 2000] [--durability full] [--dir /dev/shm]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createEngine } from '../src/engine/engine.js'
import type { Engine } from '../src/engine/api.js'
import type { Durability } from '../src/journal/records.js'
import { applyPatchCall } from '../src/adapters/openai.js'
import { handleTextEditor } from '../src/adapters/anthropic.js'
import { patchloomTools } from '../src/adapters/ai-sdk.js'
import { loadLine, machineLine, markdownTable, median, ms, ratio } from './report.js'

const args = process.argv.slice(2)
const option = (name: string, fallback: string): string => {
  const at = args.indexOf(name)
  return at === -1 ? fallback : (args[at + 1] ?? fallback)
}
const CALLS = Number(option('--calls', '2000'))
const DURABILITY = option('--durability', 'fast') as Durability
/** Where the scratch workspace goes: a tmpfs such as /dev/shm takes the disk's noise out. */
const DIR = option('--dir', tmpdir())
const WARMUP = 200

const DIRECT_FILE = 'src/direct.ts'
const ADAPTER_FILE = 'src/adapter.ts'
/** A 200-line file whose line 100 the calls toggle. */
const TEXT = Array.from({ length: 200 }, (_, i) =>
  i === 99 ? 'export const value = 1\n' : `export const line${i + 1} = ${i + 1}\n`,
).join('')

const ONE = 'export const value = 1'
const TWO = 'export const value = 2'

/** The hunk as a V4A diff: the lines around line 100. */
function v4a(from: string, to: string): string {
  return [
    ' export const line98 = 98',
    ' export const line99 = 99',
    `-${from}`,
    `+${to}`,
    ' export const line101 = 101',
    ' export const line102 = 102',
    '',
  ].join('\n')
}

function codexPatch(from: string, to: string): string {
  return `*** Begin Patch\n*** Update File: ${DIRECT_FILE}\n${v4a(from, to)}*** End Patch\n`
}

function jsonEdit(from: string, to: string): string {
  return JSON.stringify({ edits: [{ path: DIRECT_FILE, old_string: from, new_string: to }] })
}

interface Pair {
  readonly name: string
  /** The engine call the adapter stands for, on DIRECT_FILE. */
  readonly direct: (engine: Engine, from: string, to: string) => Promise<unknown>
  /** The adapter's call on ADAPTER_FILE; resolves to whether it succeeded. */
  readonly adapter: (engine: Engine, from: string, to: string) => Promise<boolean>
}

const PAIRS = (root: string): Pair[] => [
  {
    name: 'openai applyPatchCall (update_file) vs engine.apply (Codex patch)',
    direct: (engine, from, to) => engine.apply(codexPatch(from, to), { format: 'codex' }),
    adapter: async (engine, from, to) => {
      const out = await applyPatchCall(engine, {
        type: 'apply_patch_call',
        call_id: 'call_1',
        status: 'completed',
        operation: { type: 'update_file', path: ADAPTER_FILE, diff: v4a(from, to) },
      })
      return out.status === 'completed'
    },
  },
  {
    name: 'anthropic handleTextEditor (str_replace) vs engine.apply (JSON edit)',
    direct: (engine, from, to) => engine.apply(jsonEdit(from, to), { format: 'edits' }),
    adapter: async (engine, from, to) => {
      const result = await handleTextEditor(
        engine,
        {
          type: 'tool_use',
          id: 'toolu_1',
          name: 'str_replace_based_edit_tool',
          input: {
            command: 'str_replace',
            path: path.join(root, ADAPTER_FILE),
            old_str: from,
            new_str: to,
          },
        },
        { version: 'text_editor_20250728', readBeforeWrite: false },
      )
      return result.is_error !== true
    },
  },
  {
    name: 'ai-sdk edit_file tool vs engine.apply (JSON edit)',
    direct: (engine, from, to) => engine.apply(jsonEdit(from, to), { format: 'edits' }),
    adapter: async (engine, from, to) => {
      const tools = toolsOf(engine)
      const result = (await tools.edit_file.execute?.(
        { path: ADAPTER_FILE, old_string: from, new_string: to },
        { toolCallId: 'call_1', messages: [] },
      )) as { ok?: boolean } | undefined
      return result?.ok === true
    },
  },
]

const toolSets = new WeakMap<Engine, ReturnType<typeof patchloomTools>>()
function toolsOf(engine: Engine): ReturnType<typeof patchloomTools> {
  let tools = toolSets.get(engine)
  if (tools === undefined) {
    tools = patchloomTools(engine, { readBeforeWrite: false })
    toolSets.set(engine, tools)
  }
  return tools
}

async function measure(pair: Pair, root: string): Promise<{ direct: number; adapter: number }> {
  writeFileSync(path.join(root, DIRECT_FILE), TEXT)
  writeFileSync(path.join(root, ADAPTER_FILE), TEXT)
  const engine = createEngine({ root, workers: false, durability: DURABILITY })
  try {
    const direct: number[] = []
    const adapter: number[] = []
    for (let i = 0; i < WARMUP + CALLS; i++) {
      const [from, to] = i % 2 === 0 ? [ONE, TWO] : [TWO, ONE]
      let start = performance.now()
      await pair.direct(engine, from, to)
      const d = performance.now() - start
      start = performance.now()
      const ok = await pair.adapter(engine, from, to)
      const a = performance.now() - start
      if (!ok) throw new Error(`${pair.name}: the adapter's call failed at iteration ${i}`)
      if (i >= WARMUP) {
        direct.push(d)
        adapter.push(a)
      }
    }
    return { direct: median(direct), adapter: median(adapter) }
  } finally {
    await engine.close()
  }
}

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(DIR, 'patchloom-adapters-bench-'))
  try {
    writeFileSync(path.join(root, 'package.json'), '{}\n')
    const { mkdirSync } = await import('node:fs')
    mkdirSync(path.join(root, 'src'))
    console.log(machineLine())
    console.log(loadLine())
    console.log(
      `${CALLS} calls per row after ${WARMUP} warm-up calls, durability '${DURABILITY}', in ${DIR}`,
    )
    const rows: string[][] = []
    for (const pair of PAIRS(root)) {
      const { direct, adapter } = await measure(pair, root)
      rows.push([pair.name, ms(direct), ms(adapter), ms(adapter - direct), ratio(adapter, direct)])
    }
    console.log(
      markdownTable(
        ['one-hunk update', 'engine (median ms)', 'adapter (median ms)', 'overhead (ms)', 'ratio'],
        rows,
      ),
    )
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

await main()
