import { describe, expect, it } from 'vitest'
import { parseTokens, singleToken } from '../../../src/server/auth.js'
import { EditError } from '../../../src/errors.js'

function expectEditError(run: () => unknown, code: string, message?: RegExp): void {
  let thrown: unknown
  try {
    run()
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(EditError)
  expect((thrown as EditError).code).toBe(code)
  if (message !== undefined) expect((thrown as EditError).message).toMatch(message)
}

describe('parseTokens', () => {
  it('reads tokens with their grants, skipping comments and blank lines', () => {
    const table = parseTokens(
      '# farm tokens\n\naaaaaaaaaaaaaaaa1 agent=ci workspace=app\nbbbbbbbbbbbbbbbb2\n',
      'tokens',
    )
    expect(table.size).toBe(2)
    expect(table.lookup('aaaaaaaaaaaaaaaa1')).toEqual({ agent: 'ci', workspace: 'app' })
    expect(table.lookup('bbbbbbbbbbbbbbbb2')).toEqual({})
    expect(table.lookup('aaaaaaaaaaaaaaaa')).toBeUndefined()
    expect(table.lookup('')).toBeUndefined()
  })

  it('refuses short tokens, unknown fields, bad agent names and empty files', () => {
    expectEditError(() => parseTokens('short\n', 't'), 'CONFIG_INVALID', /line 1 is shorter/)
    expectEditError(() => parseTokens('aaaaaaaaaaaaaaaa role=x\n', 't'), 'CONFIG_INVALID', /role=x/)
    expectEditError(() => parseTokens('aaaaaaaaaaaaaaaa agent=has space\n', 't'), 'CONFIG_INVALID')
    expectEditError(() => parseTokens('# nothing\n', 't'), 'CONFIG_INVALID', /holds no token/)
    expectEditError(() => singleToken('tiny'), 'CONFIG_INVALID', /PATCHLOOM_TOKEN/)
  })
})
