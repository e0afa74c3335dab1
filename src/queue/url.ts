// The `--queue` URL of the distributed replay: `redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]`,
// or `rediss://` for TLS, as the connection options BullMQ hands to its Redis client. Pure: the
// URL is checked whole before anything connects, and a bad one names what is wrong.
import { EditError } from '../errors.js'

export interface QueueConnection {
  readonly host: string
  readonly port: number
  readonly db: number
  readonly username?: string
  readonly password?: string
  /** Present for rediss:// (TLS with the system's certificate authorities). */
  readonly tls?: Record<string, never>
}

const DEFAULT_PORT = 6379
/** Redis's default number of databases is 16; a server may have more, never a negative one. */
const MAX_DB = 1_000_000

export function parseQueueUrl(text: string): QueueConnection {
  const bad = (why: string): EditError =>
    new EditError(
      'CONFIG_INVALID',
      `Invalid option: --queue ${JSON.stringify(redact(text))}: ${why}. Expected redis://[[USER]:PASSWORD@]HOST[:PORT][/DB] (or rediss:// for TLS).`,
    )
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw bad('not a URL')
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw bad(`scheme ${url.protocol.replace(/:$/, '')} is not redis or rediss`)
  if (url.hostname === '') throw bad('no host')
  if (url.search !== '' || url.hash !== '') throw bad('query strings and fragments are not used')
  const port = url.port === '' ? DEFAULT_PORT : Number(url.port)
  const dbText = url.pathname.replace(/^\//, '')
  if (dbText !== '' && !/^(0|[1-9]\d*)$/.test(dbText))
    throw bad(`database ${JSON.stringify(dbText)} is not a number`)
  const db = dbText === '' ? 0 : Number(dbText)
  if (db > MAX_DB) throw bad(`database ${db} is out of range`)
  const username = decodeURIComponent(url.username)
  const password = decodeURIComponent(url.password)
  return {
    // new URL keeps the brackets of an IPv6 literal; the client wants the address alone.
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port,
    db,
    ...(username === '' ? {} : { username }),
    ...(password === '' ? {} : { password }),
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
  }
}

/** The URL with its password replaced, for messages and logs. */
export function redact(text: string): string {
  return text.replace(/^(rediss?:\/\/[^:@/]*:)[^@/]*@/i, '$1***@')
}
