// Linear git histories made fast with `git fast-import`. linearHistory: each commit rewrites one
// line of one of ten 200-line files, so a replay of it is all exact and its cost is per commit
// (bench/distributed.bench.ts, the queue's e2e tests). largeCommitHistory: every commit edits
// dozens of code-like files in many places, a history of large commits (bench/replay.bench.ts).
// A HOME of its own (gitEnv) keeps the user's git configuration out.
import { execFileSync } from 'node:child_process'
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs'
import path from 'node:path'
import { gitEnv } from '../test/helpers/history-repo.js'
import { generateFile, prng } from './generate.js'

/** A linear history of `commits` commits, each rewriting one of 10 files, made by git fast-import. */
export function linearHistory(dir: string, home: string, commits: number): void {
  mkdirSync(dir, { recursive: true })
  mkdirSync(home, { recursive: true })
  const env = gitEnv(home)
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir, env })
  const files = Array.from({ length: 10 }, (_, f) =>
    Array.from({ length: 200 }, (_, l) => `file ${f} line ${l}`),
  )
  let stream = ''
  for (let c = 0; c < commits; c++) {
    const f = c % 10
    const lines = files[f] as string[]
    lines[(c * 7) % lines.length] = `changed by commit ${c}`
    const data = `${lines.join('\n')}\n`
    const message = `commit ${c}\n`
    stream += `commit refs/heads/main\ncommitter replay <replay@example.com> ${1767225600 + c} +0000\n`
    stream += `data ${Buffer.byteLength(message)}\n${message}`
    stream += `M 100644 inline src/f${f}.txt\ndata ${Buffer.byteLength(data)}\n${data}\n`
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: dir, env, input: stream })
  execFileSync('git', ['checkout', '-q', 'main'], { cwd: dir, env })
}

/** The shape of largeCommitHistory's history. */
export interface LargeCommits {
  readonly commits: number
  /** Files in the tree, each `lines` long at the start. */
  readonly files: number
  readonly lines: number
  /** Files each commit edits, and the places it edits in each. */
  readonly filesPerCommit: number
  readonly editsPerFile: number
}

export const LARGE_COMMITS: LargeCommits = {
  commits: 120,
  files: 60,
  lines: 2000,
  filesPerCommit: 30,
  editsPerFile: 12,
}

/**
 * A seeded history of large commits: a first commit of `files` code-like files, then commits that
 * each edit `filesPerCommit` of them in `editsPerFile` places (a line changed, a block of lines
 * inserted, or a few lines deleted). The fast-import stream goes through a file, not memory.
 */
export function largeCommitHistory(
  dir: string,
  home: string,
  shape: LargeCommits = LARGE_COMMITS,
): void {
  mkdirSync(dir, { recursive: true })
  mkdirSync(home, { recursive: true })
  const env = gitEnv(home)
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir, env })
  const random = prng(11)
  const files = Array.from({ length: shape.files }, (_, f) => ({
    path: `src/part${f % 6}/module${f}.ts`,
    lines: [...generateFile(f, shape.lines, random).lines],
  }))
  const streamFile = path.join(home, 'fast-import.stream')
  const fd = openSync(streamFile, 'w')
  const write = (text: string) => writeSync(fd, text)
  const data = (text: string) => write(`data ${Buffer.byteLength(text)}\n${text}\n`)
  for (let c = 0; c < shape.commits; c++) {
    write(`commit refs/heads/main\ncommitter replay <replay@example.com> ${1767225600 + c} +0000\n`)
    data(`commit ${c}\n`)
    const touched = c === 0 ? files : pickSome(files, shape.filesPerCommit, random)
    for (const file of touched) {
      if (c > 0) editFile(file.lines, shape.editsPerFile, c, random)
      write(`M 100644 inline ${file.path}\n`)
      data(`${file.lines.join('\n')}\n`)
    }
  }
  closeSync(fd)
  const input = openSync(streamFile, 'r')
  try {
    execFileSync('git', ['fast-import', '--quiet'], {
      cwd: dir,
      env,
      stdio: [input, 'ignore', 'pipe'],
    })
  } finally {
    closeSync(input)
    rmSync(streamFile)
  }
  execFileSync('git', ['checkout', '-q', 'main'], { cwd: dir, env })
}

function pickSome<T>(list: readonly T[], count: number, random: () => number): T[] {
  const pool = [...list]
  const out: T[] = []
  while (out.length < count && pool.length > 0)
    out.push(pool.splice(Math.floor(random() * pool.length), 1)[0] as T)
  return out
}

/** `edits` changes at random places: a line rewritten, lines inserted, or lines deleted. */
function editFile(lines: string[], edits: number, commit: number, random: () => number): void {
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(random() * lines.length)
    const roll = random()
    if (roll < 0.5) lines[at] = `${lines[at] ?? ''} // commit ${commit} edit ${e}`
    else if (roll < 0.8) {
      const block = Array.from(
        { length: 1 + Math.floor(random() * 6) },
        (_, k) => `  const added${commit}_${e}_${k} = ${k} // commit ${commit}`,
      )
      lines.splice(at, 0, ...block)
    } else if (lines.length > 100) lines.splice(at, 1 + Math.floor(random() * 3))
  }
}
