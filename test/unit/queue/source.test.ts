// Where a queued replay reads a repository from: paths and the URLs git clones are told
// apart, transports that run programs are refused, secrets never reach a message, and each URL
// has a mirror of its own in the clone cache.
import { describe, expect, it } from 'vitest'
import { defaultCacheDir } from '../../../src/queue/clone-cache.js'
import {
  cacheName,
  jobSource,
  parseRepoSource,
  redactUrl,
  sourceText,
} from '../../../src/queue/source.js'

describe('parseRepoSource', () => {
  it.each([
    ['repos/lodash', '/work/repos/lodash'],
    ['.', '/work'],
    ['/srv/git/koa', '/srv/git/koa'],
    ['./user@host:dir', '/work/user@host:dir'],
  ])('reads %s as a path', (text, resolved) => {
    expect(parseRepoSource(text, '/work')).toEqual({ kind: 'path', path: resolved })
  })

  it.each([
    'https://github.com/koajs/koa.git',
    'http://git.internal:8080/koa',
    'ssh://git@git.internal:2222/org/koa.git',
    'git://127.0.0.1:9418/koa',
    'file:///srv/git/koa.git',
    'git@github.com:koajs/koa.git',
    'HTTPS://github.com/koajs/koa',
  ])('reads %s as a URL, kept as given', (text) => {
    const source = parseRepoSource(text, '/work')
    expect(source).toEqual({ kind: 'url', url: text })
    expect(sourceText(source)).toBe(text)
  })

  it.each([
    ['ext::sh -c touch% /tmp/pwned', 'remote helpers'],
    ['fd::3', 'remote helpers'],
    ['ftp://host/koa.git', 'scheme ftp is not one of file, git, http, https, ssh'],
    ['javascript://x', 'scheme javascript'],
    ['https://', 'not a URL'],
    ['file://', 'no path'],
    ['', 'not a location'],
    ['repo\nother', 'not a location'],
  ])('refuses %j', (text, why) => {
    expect(() => parseRepoSource(text, '/work')).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining(why) }),
    )
  })

  it('never echoes the password of a refused URL', () => {
    expect(() => parseRepoSource('ftp://me:hunter2@host/x', '/w')).toThrow(/me:\*\*\*@host/)
    expect(() => parseRepoSource('ftp://me:hunter2@host/x', '/w')).not.toThrow(/hunter2/)
  })
})

describe('jobSource', () => {
  it('takes an absolute path or a usable URL, nothing else', () => {
    expect(jobSource('/srv/koa')).toEqual({ kind: 'path', path: '/srv/koa' })
    expect(jobSource('git@host:koa')).toEqual({ kind: 'url', url: 'git@host:koa' })
    for (const bad of ['koa', '--upload-pack=touch /tmp/x', 'ext::sh', '/a\0b', 'ftp://h/x'])
      expect(jobSource(bad)).toBeNull()
  })
})

describe('redactUrl', () => {
  it.each([
    ['https://me:tok3n@github.com/o/r.git', 'https://me:***@github.com/o/r.git'],
    ['https://ghp_tok3n@github.com/o/r.git', 'https://***@github.com/o/r.git'],
    ['ssh://git@host/o/r', 'ssh://git@host/o/r'],
    ['git@host:o/r', 'git@host:o/r'],
    [
      "fatal: unable to access 'https://me:tok3n@host/r/': Could not resolve host",
      "fatal: unable to access 'https://me:***@host/r/': Could not resolve host",
    ],
  ])('%s', (text, shown) => {
    expect(redactUrl(text)).toBe(shown)
  })
})

describe('cacheName', () => {
  it('names the mirror after the repository and a hash of the whole URL', () => {
    expect(cacheName('https://github.com/koajs/koa.git')).toMatch(/^koa-[0-9a-f]{16}\.git$/)
    expect(cacheName('git@github.com:koajs/koa')).toMatch(/^koa-[0-9a-f]{16}\.git$/)
    expect(cacheName('file:///srv/x/')).toMatch(/^x-[0-9a-f]{16}\.git$/)
    expect(cacheName('https://host/')).toMatch(/^host-[0-9a-f]{16}\.git$/)
    expect(cacheName('https://host/..')).toMatch(/^repo-[0-9a-f]{16}\.git$/)
  })

  it('gives two URLs of one name two mirrors, and one URL always the same', () => {
    const a = cacheName('https://github.com/a/koa.git')
    expect(a).not.toBe(cacheName('https://github.com/b/koa.git'))
    expect(a).toBe(cacheName('https://github.com/a/koa.git'))
  })
})

describe('defaultCacheDir', () => {
  it('is under XDG_CACHE_HOME when that is absolute, else under ~/.cache', () => {
    expect(defaultCacheDir({ XDG_CACHE_HOME: '/var/cache/u' }, '/home/u')).toBe(
      '/var/cache/u/patchloom/repos',
    )
    expect(defaultCacheDir({ XDG_CACHE_HOME: 'rel' }, '/home/u')).toBe(
      '/home/u/.cache/patchloom/repos',
    )
    expect(defaultCacheDir({}, '/home/u')).toBe('/home/u/.cache/patchloom/repos')
  })
})
