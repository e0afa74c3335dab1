// The notebook check (src/apply/notebook.ts, D-095).
import { describe, expect, it } from 'vitest'
import { checkNotebook, isNotebookPath } from '../../../src/apply/notebook.js'

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text)
const NOTEBOOK = '{\n "cells": [],\n "nbformat": 4\n}\n'

describe('checkNotebook', () => {
  it('recognises .ipynb paths without case', () => {
    expect(isNotebookPath('a/b.ipynb')).toBe(true)
    expect(isNotebookPath('B.IPYNB')).toBe(true)
    expect(isNotebookPath('b.ipynb.txt')).toBe(false)
  })

  it('passes a notebook that is still JSON, a BOM included', () => {
    expect(checkNotebook('n.ipynb', 1, bytes(NOTEBOOK), bytes(`\ufeff${NOTEBOOK}`))).toBeNull()
  })

  it('refuses a notebook that stops being JSON, naming line and column', () => {
    const broken = '{\n "cells": [],\n "nbformat": 4,\n}\n'
    expect(checkNotebook('n.ipynb', 3, bytes(NOTEBOOK), bytes(broken))).toEqual({
      code: 'EDIT_NOTEBOOK_INVALID',
      message: expect.stringMatching(
        /^n\.ipynb: the edited notebook is not valid JSON: .* \(line 4, column 1\)\.$/,
      ),
      hint: expect.any(String),
      retryable: false,
      path: 'n.ipynb',
      patchLine: 3,
    })
  })

  it('places a truncated notebook at its end', () => {
    const error = checkNotebook('n.ipynb', 1, null, bytes('{\n "cells": ['))
    expect(error?.message).toMatch(/Unexpected end of JSON input \(line 2, column 12\)\.$/)
  })

  it('checks a new notebook, and lets an already broken one be edited', () => {
    expect(checkNotebook('n.ipynb', 1, null, bytes('nope'))?.code).toBe('EDIT_NOTEBOOK_INVALID')
    expect(checkNotebook('n.ipynb', 1, bytes('{'), bytes('{ still'))).toBeNull()
  })
})
