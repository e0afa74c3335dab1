// Writes test/corpus/sources.jsonl: real `git diff` output of this repository's own history, one
// source a line ({ id, commit, files: [{ path, pre, postSha256 }], diff }), for the damaged-diff
// corpus test (test/hand-written-corpus.test.ts). It samples SAMPLE commits evenly from the
// first-parent line up to END (pinned, so a rerun writes the same file) that modify 1-3 small
// text files, and keeps the pre-images and the post-images' hashes. Run from a full clone:
// `node test/corpus/make.mjs`.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const END = '99ac2caccf84d715791f8feceb54d5c03cc9279f'
const SAMPLE = 40
const MAX_LINES = 200
const MAX_BYTES = 6_000
const MAX_DIFF_LINES = 160

const here = path.dirname(fileURLToPath(import.meta.url))
const repo = path.resolve(here, '../..')
const home = mkdtempSync(path.join(tmpdir(), 'corpus-home-'))
const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_NOSYSTEM: '1' }
const git = (...args) =>
  execFileSync('git', args, { cwd: repo, env, maxBuffer: 64 << 20, encoding: 'utf8' })

const end = git('rev-parse', '--verify', `${END}^{commit}`).trim()
const commits = git('rev-list', '--first-parent', '--reverse', end).trim().split('\n').slice(1)

function lineCount(text) {
  return text.split('\n').length
}

function candidate(commit) {
  const parent = `${commit}^`
  const numstat = git('diff', '--numstat', '--no-renames', parent, commit).trim()
  if (numstat === '') return null
  const rows = numstat.split('\n').map((row) => row.split('\t'))
  const status = git('diff', '--name-status', '--no-renames', parent, commit).trim().split('\n')
  const modified = new Set(status.filter((row) => row.startsWith('M\t')).map((row) => row.slice(2)))
  const files = []
  for (const [added, deleted, file] of rows) {
    if (added === '-' || deleted === '-' || !modified.has(file)) continue
    if (file.startsWith('test/scenarios/')) continue
    const pre = git('show', `${parent}:${file}`)
    const post = git('show', `${commit}:${file}`)
    const small = (text) =>
      text.length <= MAX_BYTES && lineCount(text) <= MAX_LINES && !text.includes('\r')
    if (!small(pre) || !small(post) || pre === post) continue
    files.push({ path: file, pre, post })
  }
  if (files.length === 0) return null
  const chosen = files.sort((a, b) => (a.path < b.path ? -1 : 1)).slice(0, 3)
  const diff = git(
    'diff',
    '--no-color',
    '--no-ext-diff',
    '--no-renames',
    '--src-prefix=a/',
    '--dst-prefix=b/',
    '-U3',
    parent,
    commit,
    '--',
    ...chosen.map((f) => f.path),
  )
  if (lineCount(diff) > MAX_DIFF_LINES) return null
  return { commit, files: chosen, diff }
}

const all = commits.map(candidate).filter((c) => c !== null)
const step = all.length / SAMPLE
const picked = Array.from(
  { length: Math.min(SAMPLE, all.length) },
  (_, i) => all[Math.floor(i * step)],
)
const lines = picked.map((source, i) =>
  JSON.stringify({
    id: `s${String(i + 1).padStart(2, '0')}-${source.commit.slice(0, 7)}`,
    commit: source.commit,
    files: source.files.map((f) => ({
      path: f.path,
      pre: f.pre,
      postSha256: createHash('sha256').update(f.post).digest('hex'),
    })),
    diff: source.diff,
  }),
)
writeFileSync(path.join(here, 'sources.jsonl'), lines.join('\n') + '\n')
rmSync(home, { recursive: true, force: true })
console.log(`${picked.length} sources from ${all.length} candidates`)
