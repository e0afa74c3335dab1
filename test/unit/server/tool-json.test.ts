import { describe, expect, it } from 'vitest'
import { toolJson } from '../../../src/server/tool-json.js'
import { TOOLS } from '../../../src/server/tools.js'

describe('toolJson', () => {
  const json = toolJson()
  const names = TOOLS.map((t) => t.name)

  it('lists every tool in each shape, in one order', () => {
    expect(json.mcp.map((t) => t['name'])).toEqual(names)
    expect(json.openai.map((t) => (t['function'] as { name: string }).name)).toEqual(names)
    expect(json.anthropic.map((t) => t['name'])).toEqual(names)
  })

  it('gives function-calling APIs object schemas without a dialect line', () => {
    for (const tool of json.openai) {
      expect(tool['type']).toBe('function')
      const parameters = (tool['function'] as { parameters: Record<string, unknown> }).parameters
      expect(parameters['type']).toBe('object')
      expect(parameters).not.toHaveProperty('$schema')
      expect(parameters['additionalProperties']).toBe(false)
    }
    for (const tool of json.anthropic) {
      expect((tool['input_schema'] as Record<string, unknown>)['type']).toBe('object')
    }
  })

  it('states which fields are required and which tools write', () => {
    const schemaOf = (name: string): Record<string, unknown> =>
      json.anthropic.find((t) => t['name'] === name)?.['input_schema'] as Record<string, unknown>
    expect(schemaOf('read_file')['required']).toEqual(['path'])
    expect(schemaOf('write_file')['required']).toEqual(['path', 'content'])
    expect(schemaOf('apply_patch')['required']).toEqual(['patch'])
    const annotations = (name: string): Record<string, unknown> =>
      json.mcp.find((t) => t['name'] === name)?.['annotations'] as Record<string, unknown>
    expect(annotations('read_file')).toMatchObject({ readOnlyHint: true, destructiveHint: false })
    expect(annotations('edit_file')).toMatchObject({ readOnlyHint: false, destructiveHint: true })
  })
})
