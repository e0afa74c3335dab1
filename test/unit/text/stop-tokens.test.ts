import { describe, expect, it } from 'vitest'
import { decodePatchBytes, rawTextToBytes } from '../../../src/text/patch-bytes.js'
import { cutStopTokens, STOP_TOKENS } from '../../../src/text/stop-tokens.js'

const DIFF = '--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 2\n'

describe('cutStopTokens', () => {
  it.each(STOP_TOKENS.map((token) => [token]))('cuts %s glued to the last line', (token) => {
    expect(cutStopTokens(`${DIFF}+    return 3${token}`)).toEqual({
      text: `${DIFF}+    return 3`,
      tokens: [token],
      line: 6,
    })
  })

  it('cuts a token on a line of its own, keeping every byte before it', () => {
    expect(cutStopTokens(`${DIFF}+    return 3\n<|endoftext|>\n`)).toEqual({
      text: `${DIFF}+    return 3\n`,
      tokens: ['<|endoftext|>'],
      line: 7,
    })
  })

  it('cuts a run of tokens, repeated or mixed, with whitespace between and after them', () => {
    expect(cutStopTokens('*** End Patch<|im_end|><|endoftext|>')).toEqual({
      text: '*** End Patch',
      tokens: ['<|im_end|>', '<|endoftext|>'],
      line: 1,
    })
    expect(cutStopTokens('x\n<|eot_id|>\n<|eot_id|> \n\n')).toEqual({
      text: 'x\n',
      tokens: ['<|eot_id|>', '<|eot_id|>'],
      line: 2,
    })
  })

  it('cuts with or without a newline after the token: the text ends where the token began', () => {
    const want = { text: '>>>>>>> REPLACE', tokens: ['<|eot_id|>'], line: 1 }
    expect(cutStopTokens('>>>>>>> REPLACE<|eot_id|>')).toEqual(want)
    expect(cutStopTokens('>>>>>>> REPLACE<|eot_id|>\n')).toEqual(want)
    expect(cutStopTokens('>>>>>>> REPLACE<|eot_id|>\r\n')).toEqual(want)
  })

  it('keeps the line endings of a CRLF patch up to the token', () => {
    const crlf = DIFF.replaceAll('\n', '\r\n')
    expect(cutStopTokens(`${crlf}+    return 3\r\n<|im_end|>\r\n`)).toEqual({
      text: `${crlf}+    return 3\r\n`,
      tokens: ['<|im_end|>'],
      line: 7,
    })
    expect(cutStopTokens(`${crlf}+    return 3<|im_end|>\r\n`)?.text).toBe(`${crlf}+    return 3`)
  })

  it('returns null when the text does not end in a known token', () => {
    expect(cutStopTokens(`${DIFF}+    return 3\n`)).toBeNull()
    expect(cutStopTokens('')).toBeNull()
    expect(cutStopTokens('  \n')).toBeNull()
    // A token in the middle is content, and so is anything that only looks like one.
    expect(cutStopTokens(`${DIFF}+s = "<|endoftext|>"\n+    return 3\n`)).toBeNull()
    expect(cutStopTokens('+x<|endoftext|>y')).toBeNull()
    expect(cutStopTokens('+x<|ENDOFTEXT|>')).toBeNull()
    expect(cutStopTokens('+x<|endoftext|')).toBeNull()
  })

  it('leaves the tokens it does not know, `</s>` (an HTML end tag) first among them', () => {
    for (const text of ['+<s>old</s>', '+a</s>\n', '+<eos>', '+x<|file_separator|>'])
      expect(cutStopTokens(text)).toBeNull()
  })

  it('keeps a token that is the whole content of a diff line: a line of the file, not a stop', () => {
    for (const prefix of ['+', '-', ' ']) {
      expect(cutStopTokens(`${DIFF}${prefix}<|endoftext|>\n`)).toBeNull()
      expect(cutStopTokens(`${DIFF}${prefix}<|endoftext|>`)).toBeNull()
      // The same line followed by a stop: the stop goes, the line stays.
      expect(cutStopTokens(`${DIFF}${prefix}<|endoftext|><|im_end|>`)).toEqual({
        text: `${DIFF}${prefix}<|endoftext|>`,
        tokens: ['<|im_end|>'],
        line: 6,
      })
    }
  })

  it('cuts a token after a JSON document, which then parses', () => {
    const json = '[{"path":"a.txt","old":"a","new":"b"}]'
    const cut = cutStopTokens(`${json}\n<|im_end|>`)
    expect(cut?.text).toBe(`${json}\n`)
    expect(JSON.parse(cut?.text ?? '')).toHaveLength(1)
  })

  it('keeps raw bytes (a patch that is not UTF-8 elsewhere) as they are', () => {
    const bytes = Uint8Array.from([
      ...new TextEncoder().encode('+caf'),
      0xe9,
      ...new TextEncoder().encode('\n+x<|endoftext|>\n'),
    ])
    const decoded = decodePatchBytes(bytes)
    expect(decoded.firstRawLine).toBe(1)
    const cut = cutStopTokens(decoded.text)
    expect(cut?.tokens).toEqual(['<|endoftext|>'])
    expect(rawTextToBytes(cut?.text ?? '')).toEqual(bytes.subarray(0, 8))
  })

  it("cuts DeepSeek's end of sentence, which is not ASCII", () => {
    expect(cutStopTokens('+x<\uff5cend\u2581of\u2581sentence\uff5c>')?.text).toBe('+x')
  })
})
