// patchloom/ai-sdk in the AI SDK's generateText loop: patchloom's tools (patchloomTools), then
// @ai-sdk/openai's apply_patch provider tool served by applyPatchExecute. With OPENAI_API_KEY set
// it asks the real API (model: OPENAI_MODEL, or gpt-5.1); without it ai/test's
// MockLanguageModelV3 plays a scripted model, one refused edit included, so it runs offline. It
// makes its own temp workspace, prints each tool call and what the model read back, and exits 0
// when the files came out right.
// Run: npm run build && node test/examples/ai-sdk.mjs
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createOpenAI } from '@ai-sdk/openai'
import { generateText, stepCountIs } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { createEngine } from 'patchloom'
import { applyPatchExecute, patchloomTools } from 'patchloom/ai-sdk'

const REAL = Boolean(process.env.OPENAI_API_KEY)
const MODEL = process.env.OPENAI_MODEL ?? 'gpt-5.1'
const GREET =
  'def greet(name):\n    return "Hi " + name\n\n\ndef main():\n    print(greet("world"))\n'

async function main() {
  const root = await mkdtemp(path.join(tmpdir(), 'patchloom-ai-sdk-example-'))
  await writeFile(path.join(root, 'greet.py'), GREET)
  const engine = createEngine({ root })
  const read = (rel) => readFile(path.join(root, rel), 'utf8').catch(() => null)
  const openai = createOpenAI()
  let ok = true

  try {
    console.log(`workspace ${root} (${REAL ? `the real API, ${MODEL}` : 'a scripted model'})`)

    // 1. patchloom's own tools: read_file, edit_file, multi_edit, apply_patch, write_file, undo, diagnostics.
    console.log('\n== generateText({ tools: patchloomTools(engine) })')
    const edited = await generateText({
      model: REAL ? openai(MODEL) : scriptedModel(TOOL_TURNS),
      tools: patchloomTools(engine),
      stopWhen: stepCountIs(8),
      system: 'You edit files with the tools given. Read a file before you edit it.',
      prompt:
        'In greet.py make greet() return f"Hello, {name}!", then create NOTES.md with the ' +
        'heading "# Notes" and the line "greet() says Hello.". Say "Done." at the end.',
    })
    printSteps(edited.steps)
    console.log(`model: ${edited.text}`)
    ok &&= (await read('greet.py'))?.includes('Hello, {name}!') === true
    ok &&= (await read('NOTES.md')) !== null
    if (!REAL) ok &&= (await read('NOTES.md')) === '# Notes\ngreet() says Hello.\n'

    // 2. OpenAI's apply_patch tool, through @ai-sdk/openai, applied by patchloom.
    console.log(
      '\n== generateText({ tools: { apply_patch: openai.tools.applyPatch({ execute: applyPatchExecute(engine) }) } })',
    )
    const patched = await generateText({
      model: REAL ? openai.responses(MODEL) : scriptedModel(PATCH_TURNS),
      tools: { apply_patch: openai.tools.applyPatch({ execute: applyPatchExecute(engine) }) },
      stopWhen: stepCountIs(6),
      prompt:
        `greet.py is:\n${await read('greet.py')}\nRename greet to welcome (its definition and ` +
        'its call) with the apply_patch tool. Say "Renamed." at the end.',
    })
    printSteps(patched.steps)
    console.log(`model: ${patched.text}`)
    ok &&= (await read('greet.py'))?.includes('def welcome(') === true
  } finally {
    await engine.close()
    await rm(root, { recursive: true, force: true })
  }

  console.log(ok ? '\nok: the files came out right' : '\nfailed: the files are not as asked')
  return ok
}

/** Each tool call and the first lines of what the model read back. */
function printSteps(steps) {
  for (const step of steps) {
    for (const result of step.toolResults) {
      const { ok, text } =
        'ok' in result.output
          ? result.output
          : { ok: result.output.status === 'completed', text: result.output.output ?? '' }
      const [first, ...rest] = text.split('\n')
      console.log(`  ${result.toolCallId} ${result.toolName} ${ok ? 'ok' : 'refused'}: ${first}`)
      for (const line of rest.slice(0, 2)) if (line !== '') console.log(`      ${line}`)
    }
  }
}

/** The scripted turns for patchloom's tools: an edit before a read (refused), a read, the edits. */
const TOOL_TURNS = [
  [
    call('call_1', 'edit_file', {
      path: 'greet.py',
      old_string: '    return "Hi " + name',
      new_string: '    return f"Hello, {name}!"',
    }),
  ],
  [call('call_2', 'read_file', { path: 'greet.py' })],
  [
    call('call_3', 'edit_file', {
      path: 'greet.py',
      old_string: '    return "Hi " + name',
      new_string: '    return f"Hello, {name}!"',
    }),
    call('call_4', 'write_file', { path: 'NOTES.md', content: '# Notes\ngreet() says Hello.\n' }),
  ],
  'Done.',
]

/** The scripted turns for the apply_patch provider tool: one update_file with a V4A diff. */
const PATCH_TURNS = [
  [
    call('call_5', 'apply_patch', {
      callId: 'call_5',
      operation: {
        type: 'update_file',
        path: 'greet.py',
        diff:
          '-def greet(name):\n+def welcome(name):\n' +
          '@@ def main():\n-    print(greet("world"))\n+    print(welcome("world"))\n',
      },
    }),
  ],
  'Renamed.',
]

function call(toolCallId, toolName, input) {
  return { type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) }
}

/**
 * A MockLanguageModelV3 that answers each step with its turn: tool calls, or a final text. Before
 * each step after the first it checks that the SDK sent back one result per call of the last.
 */
function scriptedModel(turns) {
  const usage = {
    inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 0, text: 0, reasoning: 0 },
  }
  let step = 0
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const previous = turns[step - 1]
      if (Array.isArray(previous)) {
        const last = prompt.at(-1)
        const ids = last?.role === 'tool' ? last.content.map((part) => part.toolCallId) : []
        const expected = previous.map((c) => c.toolCallId)
        if (ids.join() !== expected.join()) {
          throw new Error(`expected results for ${expected.join(', ')}, got ${ids.join(', ')}`)
        }
      }
      const turn = turns[step++] ?? 'Done.'
      return typeof turn === 'string'
        ? {
            content: [{ type: 'text', text: turn }],
            finishReason: { unified: 'stop', raw: 'stop' },
            usage,
            warnings: [],
          }
        : {
            content: turn,
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            usage,
            warnings: [],
          }
    },
  })
}

process.exit((await main()) ? 0 : 1)
