// A long linear git history made fast with `git fast-import`: each commit rewrites one line
// of one of ten 200-line files, so a replay of it is all exact and its cost is per commit. Used
// by bench/distributed.bench.ts and the queue's e2e tests. A HOME of its own (gitEnv) keeps the
// user's git configuration out.
import { execFileSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { gitEnv } from '../test/helpers/history-repo.js'

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
