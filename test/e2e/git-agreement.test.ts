// The git oracle for the unified-diff scenarios: patchloom must apply a unified diff exactly
// where `git apply` does, or refuse, and never write where git refuses. For every scenario whose
// patch file is patch.diff, a fresh copy of input/ becomes a new repository (`git init -q`) and a
// plain `git apply <patch>` (no options) runs there. git must succeed exactly when the scenario
// has expected/, and then leave the tree (minus .git) equal to expected/ by the comparison the
// scenario runners use: entries, file bytes, the executable bit, symlink targets.
//
// A scenario where patchloom differs from git on purpose says why in scenario.json's "git" key;
// for those this test asserts that git really does disagree, so a stale annotation fails too.
// It needs only the real `git`, not the build. git runs under a HOME of its own, so the user's
// configuration (apply.whitespace, core.autocrlf, ...) cannot change its verdict.
import { execFile } from 'node:child_process'
import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gitEnv } from '../helpers/history-repo.js'
import { loadScenarios, type Scenario } from '../helpers/scenarios.js'
import { copyTree, makeTempDir, readableTree, snapshot, type TreeEntry } from '../helpers/tree.js'

const scenarios = loadScenarios().filter((scenario) => scenario.patchFormat === 'unified')
let scratch = ''
let home = ''

beforeAll(async () => {
  scratch = await makeTempDir('patchloom-git-agreement-')
  home = join(scratch, '.home')
  await mkdir(home)
})
afterAll(async () => {
  if (scratch !== '') await rm(scratch, { recursive: true, force: true })
})

interface GitRun {
  readonly code: number
  readonly stderr: string
}

function git(cwd: string, args: readonly string[]): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env: gitEnv(home) }, (error, _stdout, stderr) => {
      if (error === null) resolve({ code: 0, stderr })
      else if (typeof error.code === 'number') resolve({ code: error.code, stderr })
      else reject(error)
    })
  })
}

function withoutGitDir(entries: readonly TreeEntry[]): TreeEntry[] {
  return entries.filter((entry) => entry.path !== '.git' && !entry.path.startsWith('.git/'))
}

interface GitVerdict {
  /** Whether git's outcome is the scenario's, and if not, how they differ. */
  readonly agrees: boolean
  readonly detail: string
}

async function gitVerdict(scenario: Scenario): Promise<GitVerdict> {
  const ws = join(scratch, scenario.name)
  if (scenario.inputDir !== null) await copyTree(scenario.inputDir, ws)
  else await mkdir(ws)
  const init = await git(ws, ['init', '-q'])
  if (init.code !== 0) throw new Error(`git init failed in ${ws}: ${init.stderr}`)
  const run = await git(ws, ['apply', scenario.patchFile])
  const said = run.stderr.trim() === '' ? '' : `; git said: ${run.stderr.trim()}`
  if (scenario.expectedDir === undefined) {
    return run.code === 0
      ? { agrees: false, detail: `git applied the patch the scenario refuses${said}` }
      : { agrees: true, detail: `git refused too${said}` }
  }
  if (run.code !== 0) return { agrees: false, detail: `git refused (exit ${run.code})${said}` }
  const after = readableTree(withoutGitDir(await snapshot(ws)))
  const wanted = readableTree(await snapshot(scenario.expectedDir))
  const same = JSON.stringify(after) === JSON.stringify(wanted)
  return same
    ? { agrees: true, detail: 'git gave expected/' }
    : {
        agrees: false,
        detail: `git applied but its tree differs from expected/:\n${JSON.stringify(after, null, 1)}`,
      }
}

describe('plain `git apply` agrees with every unified-diff scenario', () => {
  it('finds unified-diff scenarios', () => {
    expect(scenarios.length).toBeGreaterThan(0)
  })

  for (const scenario of scenarios) {
    const reason = scenario.git
    const title =
      reason === undefined ? scenario.name : `${scenario.name} (git differs on purpose: ${reason})`
    it.concurrent(title, async () => {
      const verdict = await gitVerdict(scenario)
      if (reason === undefined) expect(verdict.agrees, verdict.detail).toBe(true)
      else expect(verdict.agrees, `stale "git" annotation: ${verdict.detail}`).toBe(false)
    })
  }
})
