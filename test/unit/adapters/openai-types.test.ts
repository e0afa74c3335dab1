// The OpenAI adapter's structural types against the SDKs' own, checked by `npm run typecheck`
// (tsc over test/): the Responses API's apply_patch_call items go into applyPatchCalls, its
// outputs go back as the next request's input, and createEditor's value is the Agents SDK's
// Editor. The runtime assertions only keep vitest from reporting an empty file.
import type { Editor } from '@openai/agents'
import type {
  ResponseApplyPatchToolCall,
  ResponseInputItem,
  ResponseOutputItem,
} from 'openai/resources/responses/responses'
import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  applyPatchCall,
  applyPatchCalls,
  createEditor,
  type ApplyPatchCall,
  type ApplyPatchCallOutput,
  type PatchloomEditor,
} from '../../../src/adapters/openai.js'

describe('the OpenAI adapter types', () => {
  it('take the Responses API items and give its input items', () => {
    // An output item of a response, and the same call replayed as an input item.
    expectTypeOf<ResponseApplyPatchToolCall>().toExtend<ApplyPatchCall>()
    expectTypeOf<ResponseInputItem.ApplyPatchCall>().toExtend<ApplyPatchCall>()
    expectTypeOf<ApplyPatchCallOutput>().toExtend<ResponseInputItem.ApplyPatchCallOutput>()
    expectTypeOf<ApplyPatchCallOutput>().toExtend<ResponseInputItem>()
    // What the harness filters from response.output goes straight in.
    type Filtered = Extract<ResponseOutputItem, { type: 'apply_patch_call' }>
    expectTypeOf(applyPatchCalls).parameter(1).toExtend<Iterable<ApplyPatchCall>>()
    expectTypeOf<Filtered[]>().toExtend<Iterable<ApplyPatchCall>>()
    expectTypeOf(applyPatchCall).returns.resolves.toEqualTypeOf<ApplyPatchCallOutput>()
    expect(typeof applyPatchCalls).toBe('function')
  })

  it("give the Agents SDK's Editor", () => {
    expectTypeOf<PatchloomEditor>().toExtend<Editor>()
    expectTypeOf(createEditor).returns.toExtend<Editor>()
    expect(typeof createEditor).toBe('function')
  })
})
