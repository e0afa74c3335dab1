// Bearer tokens for the HTTP server. A token file holds one token per line, optionally
// binding it to an agent name and a workspace:
//
//   # comment
//   s3cr3t-token-for-ci agent=ci workspace=app
//   another-token
//
// PATCHLOOM_TOKEN gives one unbound token instead. Tokens are compared in constant time.
import { createHash, timingSafeEqual } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { EditError } from '../errors.js'

export interface TokenGrant {
  readonly agent?: string
  readonly workspace?: string
}

export interface TokenTable {
  /** The grant for a presented token, or undefined when it is not known. */
  lookup(token: string): TokenGrant | undefined
  readonly size: number
}

/** Agent names: what X-Patchloom-Agent and token grants may hold. */
export const AGENT_NAME = /^[A-Za-z0-9._:@/-]{1,128}$/

const MIN_TOKEN_CHARS = 16

export async function loadTokenFile(path: string): Promise<TokenTable> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new EditError('CONFIG_INVALID', `Invalid option: cannot read the token file ${path}.`, {
      cause: error,
    })
  }
  return parseTokens(text, path)
}

export function parseTokens(text: string, source: string): TokenTable {
  const entries: { digest: Buffer; grant: TokenGrant }[] = []
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) continue
    const [token, ...fields] = line.split(/\s+/) as [string, ...string[]]
    const where = `${source} line ${i + 1}`
    if (token.length < MIN_TOKEN_CHARS) {
      throw new EditError(
        'CONFIG_INVALID',
        `Invalid option: the token on ${where} is shorter than ${MIN_TOKEN_CHARS} characters.`,
      )
    }
    const grant: { agent?: string; workspace?: string } = {}
    for (const field of fields) {
      const [key, value] = field.split('=', 2)
      if ((key !== 'agent' && key !== 'workspace') || value === undefined || value === '') {
        throw new EditError(
          'CONFIG_INVALID',
          `Invalid option: ${where} has ${JSON.stringify(field)}; expected agent=NAME or workspace=NAME.`,
        )
      }
      if (key === 'agent' && !AGENT_NAME.test(value)) {
        throw new EditError(
          'CONFIG_INVALID',
          `Invalid option: ${where} names agent ${JSON.stringify(value)}; use letters, digits and . _ : @ / -.`,
        )
      }
      grant[key] = value
    }
    entries.push({ digest: digest(token), grant })
  }
  if (entries.length === 0)
    throw new EditError('CONFIG_INVALID', `Invalid option: ${source} holds no token.`)
  return tableOf(entries)
}

/** One token with no binding (PATCHLOOM_TOKEN). */
export function singleToken(token: string): TokenTable {
  if (token.length < MIN_TOKEN_CHARS) {
    throw new EditError(
      'CONFIG_INVALID',
      `Invalid option: PATCHLOOM_TOKEN is shorter than ${MIN_TOKEN_CHARS} characters.`,
    )
  }
  return tableOf([{ digest: digest(token), grant: {} }])
}

function tableOf(entries: readonly { digest: Buffer; grant: TokenGrant }[]): TokenTable {
  return {
    size: entries.length,
    lookup(token) {
      const presented = digest(token)
      let found: TokenGrant | undefined
      // Every entry is compared, so the time does not say which one matched.
      for (const entry of entries) if (timingSafeEqual(entry.digest, presented)) found = entry.grant
      return found
    },
  }
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest()
}
