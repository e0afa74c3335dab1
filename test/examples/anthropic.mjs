// patchloom/anthropic in a Messages API tool loop: Claude's text editor tool, applied by
// patchloom. With ANTHROPIC_API_KEY set it asks the real API (model: ANTHROPIC_MODEL, or
// claude-sonnet-4-5); without it a scripted model sends the tool_use blocks, one refused call
// included, so the script runs offline. It makes its own temp workspace, prints each call and
// its result, and exits 0 when farewell() says Goodbye.
// Run it after `npm run build`: node test/examples/anthropic.mjs
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import { createEngine } from 'patchloom'
import { handleTextEditor, textEditorTool } from 'patchloom/anthropic'

const GREET = `export function greet(name) {
  return 'Hello, ' + name
}

export function farewell(name) {
  return 'Hello, ' + name
}
`

const root = await mkdtemp(join(tmpdir(), 'patchloom-example-anthropic-'))
await mkdir(join(root, 'src'))
await writeFile(join(root, 'src/greet.js'), GREET)
const engine = createEngine({ root })

const live = process.env.ANTHROPIC_API_KEY !== undefined && process.env.ANTHROPIC_API_KEY !== ''
const client = live
  ? new Anthropic()
  : new Anthropic({ apiKey: 'scripted', fetch: scriptedFetch(), maxRetries: 0 })
console.log(
  live ? 'model: the Anthropic API' : 'model: scripted (set ANTHROPIC_API_KEY for the real API)',
)

const messages = [
  {
    role: 'user',
    content:
      'In src/greet.js, farewell() says Hello: make it say Goodbye. Then add the comment line "// Greetings." at the top of the file.',
  },
]
for (let turn = 0; turn < 12; turn++) {
  const response = await client.messages.create({
    model: process.env.ANTHROPIC_MODEL ?? 'claude-sonnet-4-5',
    max_tokens: 2048,
    system:
      'You edit the files of a project with the text editor tool. Paths are relative to the project root.',
    tools: [textEditorTool('text_editor_20250728')],
    messages,
  })
  messages.push({ role: 'assistant', content: response.content })
  const uses = response.content.filter((block) => block.type === 'tool_use')
  if (uses.length === 0) break
  const results = []
  for (const use of uses) {
    const result = await handleTextEditor(engine, use)
    const { command, path } = use.input ?? {}
    console.log(`> ${command} ${path}`)
    console.log(
      `${result.is_error ? '  (is_error)\n' : ''}${result.content.replace(/^/gm, '  | ')}`,
    )
    results.push(result)
  }
  messages.push({ role: 'user', content: results })
}
await engine.close()

const after = await readFile(join(root, 'src/greet.js'), 'utf8')
console.log(`\nsrc/greet.js is now:\n${after}`)
const fixed = after.includes("return 'Goodbye, ' + name") && after.startsWith('// Greetings.')
console.log(fixed ? 'farewell() says Goodbye' : 'farewell() was not fixed')
process.exit(fixed ? 0 : 1)

/** A fetch answering each Messages API request with the next scripted turn. */
function scriptedFetch() {
  const turns = [
    [
      { command: 'view', path: '.' },
      { command: 'view', path: 'src/greet.js' },
    ],
    // Refused: the line is in the file twice; the result names both lines.
    [
      {
        command: 'str_replace',
        path: 'src/greet.js',
        old_str: "  return 'Hello, ' + name",
        new_str: "  return 'Goodbye, ' + name",
      },
    ],
    [
      {
        command: 'str_replace',
        path: 'src/greet.js',
        old_str: "export function farewell(name) {\n  return 'Hello, ' + name",
        new_str: "export function farewell(name) {\n  return 'Goodbye, ' + name",
      },
      { command: 'insert', path: 'src/greet.js', insert_line: 0, new_str: '// Greetings.\n' },
    ],
  ]
  let request = 0
  let id = 0
  return async () => {
    const turn = turns[request++]
    const content =
      turn === undefined
        ? [
            {
              type: 'text',
              text: 'farewell() now says Goodbye, and the file starts with the comment.',
            },
          ]
        : turn.map((input) => ({
            type: 'tool_use',
            id: `toolu_${++id}`,
            name: 'str_replace_based_edit_tool',
            input,
          }))
    const message = {
      id: `msg_${request}`,
      type: 'message',
      role: 'assistant',
      model: 'scripted',
      content,
      stop_reason: turn === undefined ? 'end_turn' : 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    }
    return new Response(JSON.stringify(message), {
      headers: { 'content-type': 'application/json' },
    })
  }
}
