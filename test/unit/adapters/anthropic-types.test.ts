// The adapter's structural types against the Anthropic SDK's own: a tool_use block of either API
// is a TextEditorToolUse, a TextEditorToolResult is a tool_result block param, each version's
// definition is that version's tool type, and textEditorRunnable's tool is a runnable tool of
// the SDK's tool runner. Checked by the type-checker (npm run typecheck); the test body is empty.
import type { BetaRunnableTool } from '@anthropic-ai/sdk/lib/tools/BetaRunnableTool'
import type {
  BetaToolResultBlockParam,
  BetaToolTextEditor20241022,
  BetaToolTextEditor20250124,
  BetaToolTextEditor20250429,
  BetaToolTextEditor20250728,
  BetaToolUnion,
  BetaToolUseBlock,
} from '@anthropic-ai/sdk/resources/beta/messages/messages'
import type {
  ToolResultBlockParam,
  ToolTextEditor20250124,
  ToolTextEditor20250429,
  ToolTextEditor20250728,
  ToolUnion,
  ToolUseBlock,
} from '@anthropic-ai/sdk/resources/messages/messages'
import { describe, expectTypeOf, it } from 'vitest'
import type {
  TextEditorRunnable,
  TextEditorTool,
  TextEditorToolResult,
  TextEditorToolUse,
} from '../../../src/adapters/anthropic.js'

describe('the Anthropic adapter types fit the SDK', () => {
  it('takes tool_use blocks and gives tool_result block params', () => {
    expectTypeOf<ToolUseBlock>().toExtend<TextEditorToolUse>()
    expectTypeOf<BetaToolUseBlock>().toExtend<TextEditorToolUse>()
    expectTypeOf<TextEditorToolResult>().toExtend<ToolResultBlockParam>()
    expectTypeOf<TextEditorToolResult>().toExtend<BetaToolResultBlockParam>()
  })

  it("gives each version's definition its own tool type", () => {
    expectTypeOf<TextEditorTool<'text_editor_20250728'>>().toExtend<ToolTextEditor20250728>()
    expectTypeOf<TextEditorTool<'text_editor_20250429'>>().toExtend<ToolTextEditor20250429>()
    expectTypeOf<TextEditorTool<'text_editor_20250124'>>().toExtend<ToolTextEditor20250124>()
    expectTypeOf<TextEditorTool<'text_editor_20241022'>>().toExtend<BetaToolTextEditor20241022>()
    expectTypeOf<TextEditorTool<'text_editor_20250124'>>().toExtend<BetaToolTextEditor20250124>()
    expectTypeOf<TextEditorTool<'text_editor_20250429'>>().toExtend<BetaToolTextEditor20250429>()
    expectTypeOf<TextEditorTool<'text_editor_20250728'>>().toExtend<BetaToolTextEditor20250728>()
    expectTypeOf<TextEditorTool>().toExtend<BetaToolUnion>()
    expectTypeOf<TextEditorTool<'text_editor_20250728'>>().toExtend<ToolUnion>()
    expectTypeOf<TextEditorTool<'text_editor_20250124'>>().not.toExtend<ToolTextEditor20250728>()
  })

  it("makes a runnable tool for the SDK's tool runner", () => {
    expectTypeOf<TextEditorRunnable<'text_editor_20250728'>>().toExtend<BetaRunnableTool>()
    expectTypeOf<TextEditorRunnable<'text_editor_20241022'>>().toExtend<BetaRunnableTool>()
  })
})
