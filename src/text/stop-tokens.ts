// Model stop tokens at the very end of a patch: a serving stack that does not hide them leaves
// `<|endoftext|>`, `<|im_end|>` and the like glued to the model's last line. cutStopTokens finds
// a run of known tokens at the end (whitespace between and after them) and gives the text before
// the first, byte for byte, as a stack that hides them would have returned it; src/bytes/patch-
// input.ts calls it once for every patch, before detection and parsing. A token anywhere else is
// content. Only the tokens listed here are cut, each a stop or end-of-turn token of a widely used
// model family; the reasons for the ones left out are DECISIONS.md D-138.

/** The stop tokens cut from the end of a patch, with the models that end their output with each. */
export const STOP_TOKENS: readonly string[] = [
  // GPT-2 and GPT-3 tokenizers; the end of text of StarCoder, Qwen, Phi, Falcon, GLM and others.
  '<|endoftext|>',
  // ChatML's end of turn: Qwen chat models, Yi, InternLM2, Hermes, SmolLM.
  '<|im_end|>',
  // Llama 3: end of turn, end of a message that calls a tool (3.1 on), end of text.
  '<|eot_id|>',
  '<|eom_id|>',
  '<|end_of_text|>',
  // Llama 4: end of turn.
  '<|eot|>',
  // Phi-3 and Phi-4 end of turn, and gpt-oss's end of message; gpt-oss's end of its answer.
  '<|end|>',
  '<|return|>',
  // DeepSeek Coder (first generation) instruct: end of turn.
  '<|EOT|>',
  // DeepSeek V2, V3 and R1: end of sentence, written with fullwidth bars and U+2581.
  '<\uff5cend\u2581of\u2581sentence\uff5c>',
  // Gemma and CodeGemma instruct: end of turn.
  '<end_of_turn>',
  // Cohere Command R: end of turn.
  '<|END_OF_TURN_TOKEN|>',
]

/** What cutStopTokens removed. */
export interface StopTokenCut {
  /** The text before the first removed token. */
  readonly text: string
  /** The tokens removed, in the order they stood. */
  readonly tokens: readonly string[]
  /** 1-based line of the text on which the first removed token stood. */
  readonly line: number
}

/** A line whose whole content the token is, after a diff line's one-character prefix. */
const DIFF_PREFIXES = new Set(['+', '-', ' '])

/**
 * Cuts the run of STOP_TOKENS at the very end of `text` (whitespace allowed between and after
 * them), or returns null when the text does not end in one. A token that is the whole content of
 * a diff line (`+<|endoftext|>`) is a line of the file, so it stays with what stands before it.
 * @example
 * cutStopTokens('+    return 3<|endoftext|>\n')
 * // { text: '+    return 3', tokens: ['<|endoftext|>'], line: 1 }
 */
export function cutStopTokens(text: string): StopTokenCut | null {
  const tokens: string[] = []
  // Where each token of the run starts, last first.
  const starts: number[] = []
  for (let end = endBeforeWhitespace(text, text.length); ;) {
    const token = STOP_TOKENS.find((t) => text.endsWith(t, end))
    if (token === undefined) break
    tokens.unshift(token)
    starts.unshift(end - token.length)
    end = endBeforeWhitespace(text, end - token.length)
  }
  const first = starts[0]
  if (first === undefined) return null
  const lineStart = text.lastIndexOf('\n', first - 1) + 1
  if (DIFF_PREFIXES.has(text.slice(lineStart, first))) {
    // The first token is the line's content; the rest of the run is what the model stopped with.
    const kept = (tokens.shift() as string).length
    starts.shift()
    const next = starts[0]
    if (next === undefined) return null
    return { text: text.slice(0, first + kept), tokens, line: lineOf(text, next) }
  }
  return { text: text.slice(0, first), tokens, line: lineOf(text, first) }
}

function endBeforeWhitespace(text: string, end: number): number {
  let at = end
  while (at > 0 && isSpace(text.charCodeAt(at - 1))) at--
  return at
}

/** Space, tab, LF, CR (what a harness or a stream adds after the model's last token). */
function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d
}

/** 1-based line of offset `at`. */
function lineOf(text: string, at: number): number {
  let line = 1
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) line++
  return line
}
