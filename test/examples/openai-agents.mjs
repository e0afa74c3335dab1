// patchloom/openai in both of OpenAI's loops: the Agents SDK (an Agent whose apply_patch tool
// is createEditor(engine)) and the raw Responses API (applyPatchCalls with atomic). Scripted
// model by default; with OPENAI_API_KEY set, the real API. Makes its own temp workspace,
// prints every output the model reads, exits 0 when the files came out right.
// Run: npm run build && node test/examples/openai-agents.mjs
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Agent, Runner, Usage, applyPatchTool } from '@openai/agents'
import OpenAI from 'openai'
import { createEngine } from 'patchloom'
import { applyPatchCalls, createEditor } from 'patchloom/openai'

const REAL = Boolean(process.env.OPENAI_API_KEY)
const MODEL = process.env.OPENAI_MODEL ?? 'gpt-5.1'
const GREET =
  'def greet(name):\n    return "Hi " + name\n\n\ndef main():\n    print(greet("world"))\n'

async function main() {
  const root = await mkdtemp(path.join(tmpdir(), 'patchloom-openai-example-'))
  await writeFile(path.join(root, 'greet.py'), GREET)
  const engine = createEngine({ root })
  const read = (rel) => readFile(path.join(root, rel), 'utf8').catch(() => null)
  let ok = true

  try {
    console.log(`workspace ${root} (${REAL ? `the real API, ${MODEL}` : 'a scripted model'})`)

    // 1. The Agents SDK: the Runner calls the editor once per apply_patch operation.
    console.log('\n== Agents SDK: Agent + applyPatchTool({ editor: createEditor(engine) })')
    const agent = new Agent({
      name: 'editor',
      instructions: 'You edit files with the apply_patch tool. Make the change, then say "Done."',
      model: REAL ? MODEL : new ScriptedAgentModel(),
      tools: [applyPatchTool({ editor: createEditor(engine) })],
    })
    const task =
      `greet.py is:\n${GREET}\nMake greet() return f"Hello, {name}!" and add NOTES.md ` +
      'with the heading "# Notes" and the line "greet() says Hello."'
    const result = await new Runner({ tracingDisabled: true }).run(agent, task, { maxTurns: 6 })
    for (const item of result.newItems) {
      if (item.type !== 'tool_call_output_item') continue
      printOutput(item.rawItem.callId, item.rawItem.status, item.rawItem.output ?? '')
    }
    console.log(`agent: ${result.finalOutput}`)
    const greet = await read('greet.py')
    ok &&= greet?.includes('Hello, {name}!') === true && (await read('NOTES.md')) !== null
    if (!REAL) ok &&= (await read('NOTES.md')) === '# Notes\ngreet() says Hello.\n'

    // 2. The raw Responses API: the harness loop applies each response's calls in one transaction.
    console.log('\n== Responses API: applyPatchCalls(engine, calls, { atomic: true })')
    const client = REAL
      ? new OpenAI()
      : new OpenAI({ apiKey: 'scripted', fetch: scriptedResponses(), maxRetries: 0 })
    const tools = [{ type: 'apply_patch' }]
    const now = await read('greet.py')
    let response = await client.responses.create({
      model: MODEL,
      tools,
      input:
        `greet.py is:\n${now}\nRename greet to welcome (its definition and its call), and ` +
        'create welcome_test.py with a test that welcome("x") == "Hello, x!". Use one response.',
    })
    for (let turn = 0; turn < 6; turn++) {
      const calls = response.output.filter((item) => item.type === 'apply_patch_call')
      if (calls.length === 0) break
      const outputs = await applyPatchCalls(engine, calls, { atomic: true })
      for (const out of outputs) printOutput(out.call_id, out.status, out.output)
      response = await client.responses.create({
        model: MODEL,
        tools,
        previous_response_id: response.id,
        input: outputs,
      })
    }
    console.log(`model: ${response.output_text}`)
    const [newest] = await engine.transactions()
    console.log(`journal: ${newest?.id} changed ${newest?.files.map((f) => f.path).join(', ')}`)
    ok &&= (await read('greet.py'))?.includes('def welcome(') === true
    if (!REAL) ok &&= newest?.files.length === 2
  } finally {
    await engine.close()
    await rm(root, { recursive: true, force: true })
  }

  console.log(ok ? '\nok: the files came out right' : '\nfailed: the files are not as asked')
  return ok
}

function printOutput(callId, status, output) {
  const [first, ...rest] = output.split('\n')
  console.log(`  ${callId} ${status}: ${first}`)
  for (const line of rest.slice(0, 3)) if (line !== '') console.log(`      ${line}`)
}

/** An agents-core Model that emits apply_patch_call items, then ends the run. */
class ScriptedAgentModel {
  turn = 0
  turns = [
    [
      agentCall('call_1', {
        type: 'update_file',
        path: 'greet.py',
        diff: '@@ def greet(name):\n-    return "Hi " + name\n+    return f"Hello, {name}!"\n',
      }),
      agentCall('call_2', {
        type: 'create_file',
        path: 'NOTES.md',
        diff: '+# Notes\n+greet() says Hello.\n',
      }),
    ],
    [
      {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Done.' }],
      },
    ],
  ]

  async getResponse(request) {
    if (this.turn === 1) {
      // The Runner sends the editor's results back as apply_patch_call_output items.
      const outs = request.input.filter((item) => item.type === 'apply_patch_call_output')
      if (outs.length !== 2) throw new Error(`expected 2 outputs, got ${outs.length}`)
    }
    const output = this.turns[this.turn++] ?? []
    return { usage: new Usage(), output, responseId: `resp_${this.turn}` }
  }

  // eslint-disable-next-line require-yield
  async *getStreamedResponse() {
    throw new Error('the scripted model does not stream')
  }
}

function agentCall(callId, operation) {
  return { type: 'apply_patch_call', callId, status: 'completed', operation }
}

/**
 * A fetch for the OpenAI client playing the Responses API: two calls of which one does not match
 * (so with atomic neither lands), then the same two corrected, then a message.
 */
function scriptedResponses() {
  const test = {
    type: 'create_file',
    path: 'welcome_test.py',
    diff: '+from greet import welcome\n+\n+\n+def test_welcome():\n+    assert welcome("x") == "Hello, x!"\n',
  }
  const rename = (world) =>
    '-def greet(name):\n+def welcome(name):\n' +
    `@@ def main():\n-    print(greet("${world}"))\n+    print(welcome("${world}"))\n`
  const turns = [
    // One call's context is wrong ("World"): with atomic, neither call lands.
    [
      apc('call_a', { type: 'update_file', path: 'greet.py', diff: rename('World') }),
      apc('call_b', test),
    ],
    // The same two, corrected: one transaction.
    [
      apc('call_c', { type: 'update_file', path: 'greet.py', diff: rename('world') }),
      apc('call_d', test),
    ],
    [
      {
        type: 'message',
        id: 'msg_1',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Renamed, with a test.', annotations: [] }],
      },
    ],
  ]
  let n = 0
  return async (url, init) => {
    const body = JSON.parse(init.body)
    const output = turns[n++] ?? []
    return new Response(
      JSON.stringify({
        id: `resp_${n}`,
        object: 'response',
        created_at: 0,
        status: 'completed',
        model: body.model,
        output,
        tools: body.tools,
        parallel_tool_calls: true,
        tool_choice: 'auto',
        error: null,
        incomplete_details: null,
        instructions: null,
        metadata: {},
        temperature: null,
        top_p: null,
      }),
      { status: 200, headers: { 'content-type': 'application/json' } },
    )
  }

  function apc(callId, operation) {
    return {
      type: 'apply_patch_call',
      id: `apc_${callId}`,
      call_id: callId,
      status: 'completed',
      operation,
    }
  }
}

process.exit((await main()) ? 0 : 1)
