// Where a queued replay reads a repository from, pure. A REPO given to `replay --queue` is
// either a path every worker can read (a shared filesystem) or a URL git can clone, which each
// worker (and the enqueuer, to plan) mirrors into its own clone cache. Only transports that
// move data are accepted: file, git, http, https and ssh URLs and scp-like `user@host:path`;
// git's `ext::` and other remote helpers run commands of the URL's choosing and are refused, as
// is anything that could be read as an option. Credentials in a URL are never echoed.
import { createHash } from 'node:crypto'
import path from 'node:path'
import { EditError } from '../errors.js'

export type RepoSource =
  { readonly kind: 'path'; readonly path: string } | { readonly kind: 'url'; readonly url: string }

export const URL_SCHEMES = ['file', 'git', 'http', 'https', 'ssh'] as const

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i
// user@host:path, as git reads it: a colon before any slash, after a user and a host.
const SCP_LIKE = /^[^\s/@:-][^\s/@:]*@[^\s/:]+:[^\s]/
// Remote helpers (`transport::address`), git's way to run a program of the URL's choosing.
const HELPER = /^[a-z][a-z0-9+.-]*::/i

/**
 * `text` as a repository source: a URL when it has a scheme or is scp-like, else a path
 * resolved against `cwd`. CONFIG_INVALID names what is wrong with an unusable URL.
 */
export function parseRepoSource(text: string, cwd: string): RepoSource {
  const bad = (why: string): EditError =>
    new EditError(
      'CONFIG_INVALID',
      `Invalid option: repository ${JSON.stringify(redactUrl(text))}: ${why}. A queued replay reads a path every worker can read, or a ${URL_SCHEMES.join(', ')} URL or user@host:path that each worker clones.`,
    )
  if (text === '' || text.includes('\0') || /[\r\n]/.test(text)) throw bad('not a location')
  if (HELPER.test(text)) throw bad('git remote helpers (transport::address) are not accepted')
  const scheme = SCHEME.exec(text)?.[1]?.toLowerCase()
  if (scheme !== undefined) {
    if (!(URL_SCHEMES as readonly string[]).includes(scheme))
      throw bad(`scheme ${scheme} is not one of ${URL_SCHEMES.join(', ')}`)
    let url: URL
    try {
      url = new URL(text)
    } catch {
      throw bad('not a URL')
    }
    if (scheme !== 'file' && url.hostname === '') throw bad('no host')
    if (scheme === 'file' && url.pathname.length <= 1) throw bad('no path')
    return { kind: 'url', url: text }
  }
  if (SCP_LIKE.test(text)) return { kind: 'url', url: text }
  return { kind: 'path', path: path.resolve(cwd, text) }
}

/** The form a job carries: an absolute path, or the URL as given. */
export function sourceText(source: RepoSource): string {
  return source.kind === 'path' ? source.path : source.url
}

/** A job's `repo` as a source, or null when it is neither an absolute path nor a usable URL. */
export function jobSource(repo: string): RepoSource | null {
  if (repo.startsWith('/')) return repo.includes('\0') ? null : { kind: 'path', path: repo }
  try {
    const source = parseRepoSource(repo, '/')
    return source.kind === 'url' ? source : null
  } catch {
    return null
  }
}

/**
 * `text` with the secret of any URL in it replaced, for messages and reports: the password of a
 * user part, and an http(s) user part with no password (a token given as the user name).
 */
export function redactUrl(text: string): string {
  return text
    .replace(/([a-z][a-z0-9+.-]*:\/\/[^/@:\s]*:)[^@/\s]*@/gi, '$1***@')
    .replace(/(https?:\/\/)[^/@:\s]+@/gi, '$1***@')
}

/**
 * The directory name of `url`'s mirror in a clone cache: the repository's own name (for
 * people looking at the cache) and a hash of the whole URL (so two URLs never share a mirror).
 */
export function cacheName(url: string): string {
  const hash = createHash('sha256').update(url).digest('hex').slice(0, 16)
  const tail = url
    .replace(/[?#].*$/, '')
    .replace(/\/+$/, '')
    .split(/[/:]/)
    .pop()
  const base = (tail ?? '')
    .replace(/\.git$/, '')
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^[.-]+/, '')
    .slice(0, 40)
  return `${base === '' ? 'repo' : base}-${hash}.git`
}
