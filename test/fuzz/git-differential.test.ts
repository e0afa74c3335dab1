// patchloom against a real `git apply`, on patches git itself wrote (D-133): random small trees
// of repeated lines, one or two rounds of random edits, renames, deletions, creations and file-to-
// directory type changes (two rounds make a patch of two diffs one after the other), `git diff
// --cached -M` with 1 to 5 lines of context, and often a base that drifted from the one the
// patch was made on (lines inserted here and there). Both apply the patch to copies of one tree.
// Where both apply, the trees must be identical. Where only one does, the difference must be one
// of patchloom's documented ones, and nothing else:
// - git applies, patchloom refuses: a hunk that fits equally near its stated line in two places
//   (MATCH_AMBIGUOUS, git takes one), or sections whose order git's result would not follow
//   (PATH_DUPLICATE "no single reading", D-132);
// - patchloom applies, git refuses: a hunk with leading context that states line 1, placed by
//   that context away from the first line (D-129; git pins it there);
// - patchloom applies, git refuses: a hunk whose outer context drifted, placed by bounded fuzz
//   (match.fuzz), and then the tree is git's three-way merge of the patch (or, where the drift
//   sits next to the change and the merge conflicts, agrees with it around each conflict).
// Some patches are then damaged as model output is (trailing spaces on a context line, which git
// refuses): wherever patchloom still applies one, the tree must be the one git made of the
// undamaged patch.
// Seeds are fixed; the fast loop runs a tenth.
import { spawnSync } from 'node:child_process'
import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine/engine.js'
import { isEditError } from '../../src/errors.js'
import type { ApplyResult } from '../../src/types.js'
import { gitEnv } from '../helpers/history-repo.js'
import { fuzzRuns } from '../helpers/test-mode.js'

const RUNS = fuzzRuns(200, 20)
const LINES = ['fn a {', 'fn b {', '  x = 1', '  y = 2', '}', '', 'z', 'w']

/** A seeded linear congruential generator: the same seed, the same tree and patch. */
function generator(seed: number): { next: () => number; pick: <T>(items: readonly T[]) => T } {
  let state = seed
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648
    return state / 2147483648
  }
  return { next, pick: (items) => items[Math.floor(next() * items.length)] as (typeof items)[0] }
}

type Outcome =
  | 'same'
  | 'fuzz, as merged'
  | 'fuzz, next to the drift'
  | 'damaged, same'
  | 'damaged, refused'
  | 'tie'
  | 'sequence'
  | 'start-anchor'
  | 'both refused'
  | { readonly wrong: string }

async function treeOf(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  const walk = async (at: string): Promise<void> => {
    for (const name of (await readdir(at)).sort()) {
      if (name === '.git' || name === '.patchloom') continue
      const abs = path.join(at, name)
      if ((await stat(abs)).isDirectory()) await walk(abs)
      else out[path.relative(dir, abs)] = await readFile(abs, 'utf8')
    }
  }
  await walk(dir)
  return out
}

async function trial(seed: number, scratch: string, home: string): Promise<Outcome> {
  const { next, pick } = generator(seed)
  const lines = (n: number) => Array.from({ length: n }, () => pick(LINES))
  const text = (ls: readonly string[]) => (ls.length === 0 ? '' : ls.join('\n') + '\n')
  const dir = await mkdtemp(path.join(scratch, `s${seed}-`))
  const work = path.join(dir, 'work')
  await mkdir(work)
  const git = (args: string[], input?: string) => {
    const run = spawnSync('git', args, { cwd: work, env: gitEnv(home), input, encoding: 'utf8' })
    if (run.error !== undefined) throw run.error
    return run
  }
  const commit = (message: string) =>
    git(['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', message, '--allow-empty'])
  git(['init', '-q'])
  const base: string[] = []
  for (let i = 0, n = 1 + Math.floor(next() * 3); i < n; i++) {
    await writeFile(path.join(work, `f${i}.txt`), text(lines(3 + Math.floor(next() * 25))))
    base.push(`f${i}.txt`)
  }
  git(['add', '-A'])
  commit('base')
  const baseCommit = git(['rev-parse', 'HEAD']).stdout.trim()
  const context = pick([1, 2, 3, 3, 3, 5])
  let patch = ''
  for (let round = 0, rounds = next() < 0.35 ? 2 : 1; round < rounds; round++) {
    for (const file of git(['ls-files']).stdout.split('\n').filter(Boolean)) {
      const abs = path.join(work, file)
      const r = next()
      if (r < 0.08) git(['rm', '-q', file])
      else if (r < 0.14) git(['mv', file, `m${Math.floor(next() * 1000)}.txt`])
      else if (r < 0.18 && !file.includes('/')) {
        const old = await readFile(abs, 'utf8')
        git(['rm', '-q', file])
        await mkdir(abs)
        await writeFile(path.join(abs, 'inner.txt'), old)
      } else {
        const edited = (await readFile(abs, 'utf8')).split('\n').slice(0, -1)
        for (let e = 0, edits = 1 + Math.floor(next() * 3); e < edits; e++) {
          const at = Math.floor(next() * (edited.length + 1))
          edited.splice(at, Math.floor(next() * 3), ...lines(Math.floor(next() * 3)))
        }
        await writeFile(abs, text(edited))
      }
    }
    if (next() < 0.3)
      await writeFile(path.join(work, `n${round}.txt`), text(lines(1 + Math.floor(next() * 5))))
    git(['add', '-A'])
    patch += git(['diff', '--cached', '-M', `-U${context}`]).stdout
    commit(`round ${round}`)
  }
  git(['checkout', '-q', baseCommit])
  git(['clean', '-fdq'])
  // The base drifts: lines inserted into the files the patch was made against.
  if (next() < 0.7) {
    for (const file of base) {
      const drifted = (await readFile(path.join(work, file), 'utf8')).split('\n').slice(0, -1)
      for (let k = 0, n = Math.floor(next() * 3); k < n; k++)
        drifted.splice(
          Math.floor(next() * (drifted.length + 1)),
          0,
          ...lines(1 + Math.floor(next() * 2)),
        )
      await writeFile(path.join(work, file), text(drifted))
    }
  }
  const viaGit = path.join(dir, 'git')
  const viaEngine = path.join(dir, 'engine')
  await cp(work, viaGit, { recursive: true })
  await cp(work, viaEngine, { recursive: true })
  const gitApplied = spawnSync('git', ['apply', '-'], {
    cwd: viaGit,
    env: gitEnv(home),
    input: patch,
    encoding: 'utf8',
  })
  const engine = createEngine({ root: viaEngine, workers: false })
  let result: ApplyResult | undefined
  let refusal: unknown
  try {
    result = await engine.apply(patch)
  } catch (error) {
    refusal = error
  } finally {
    await engine.close()
  }
  const where = `seed ${seed} (${dir}):\n${patch}`
  const keep = async (outcome: Outcome): Promise<Outcome> => {
    if (typeof outcome === 'string') await rm(dir, { recursive: true, force: true })
    return outcome
  }
  if (gitApplied.status === 0 && result !== undefined) {
    const gitTree = JSON.stringify(await treeOf(viaGit))
    if (gitTree !== JSON.stringify(await treeOf(viaEngine)))
      return keep({ wrong: `trees differ, ${where}` })
    const damaged = damage(patch, next)
    if (damaged === null) return keep('same')
    const viaDamaged = path.join(dir, 'damaged')
    await cp(work, viaDamaged, { recursive: true })
    const again = createEngine({ root: viaDamaged, workers: false })
    const applied = await again.apply(damaged).then(
      () => true,
      () => false,
    )
    await again.close()
    if (!applied) return keep('damaged, refused')
    if (JSON.stringify(await treeOf(viaDamaged)) === gitTree) return keep('damaged, same')
    return keep({
      wrong: `the damaged patch gave another tree than git's of the whole one, ${where}\ndamaged:\n${damaged}`,
    })
  }
  if (gitApplied.status === 0) {
    if (!isEditError(refusal)) return keep({ wrong: `engine threw ${String(refusal)}, ${where}` })
    if (refusal.code === 'MATCH_AMBIGUOUS') return keep('tie')
    if (refusal.code === 'PATH_DUPLICATE' && refusal.message.includes('no single reading'))
      return keep('sequence')
    return keep({
      wrong: `git applies, patchloom refuses ${refusal.code}: ${refusal.message}, ${where}`,
    })
  }
  if (result !== undefined) {
    const patchLines = patch.split('\n')
    const atLineOne = new Set(
      patchLines.flatMap((line, i) =>
        /^@@ -1[, ]/.test(line) && patchLines[i + 1]?.startsWith(' ') === true ? [i + 1] : [],
      ),
    )
    const moved = result.warnings.some(
      (w) => w.code === 'match.offset' && w.patchLine !== undefined && atLineOne.has(w.patchLine),
    )
    if (moved) return keep('start-anchor')
    if (result.warnings.some((w) => w.code === 'match.fuzz')) {
      // Fuzz placed a hunk whose outer context drifted: the tree must be git's three-way merge of
      // the patch into the drifted files (the blobs the patch names are in the repository).
      const viaMerge = path.join(dir, 'merge')
      await cp(work, viaMerge, { recursive: true })
      const inMerge = (args: string[], input?: string) =>
        spawnSync('git', args, { cwd: viaMerge, env: gitEnv(home), input, encoding: 'utf8' })
      inMerge(['add', '-A'])
      const merged = inMerge(['apply', '-3', '-'], patch)
      const mergedTree = await treeOf(viaMerge)
      const engineTree = await treeOf(viaEngine)
      if (merged.status === 0 && JSON.stringify(mergedTree) === JSON.stringify(engineTree))
        return keep('fuzz, as merged')
      // Where the drift sits right next to the change, the merge conflicts (git will not order
      // two insertions at one place); the hunk must still be where the conflict is.
      if (merged.status !== 0 && agreesAround(mergedTree, engineTree))
        return keep('fuzz, next to the drift')
      return keep({
        wrong: `patchloom applies by fuzz, and git's three-way merge ${merged.status === 0 ? 'gives another tree' : `refuses (${merged.stderr.trim()})`}, ${where}`,
      })
    }
    return keep({ wrong: `patchloom applies, git refuses (${gitApplied.stderr.trim()}), ${where}` })
  }
  return keep('both refused')
}

/**
 * Whether every file of `engine` equals `merged`'s, or, for a file with merge conflicts, holds
 * the merged text outside each conflict in the same order, starting and ending as it does.
 */
function agreesAround(merged: Record<string, string>, engine: Record<string, string>): boolean {
  const paths = Object.keys(merged)
  if (paths.join('\n') !== Object.keys(engine).join('\n')) return false
  return paths.every((p) => {
    const ours = merged[p] as string
    const text = engine[p] as string
    if (!ours.includes('<<<<<<< ')) return ours === text
    const outside = ours.split(/^<<<<<<< [^\n]*\n[\s\S]*?^>>>>>>> [^\n]*\n/m)
    let at = 0
    for (const [i, part] of outside.entries()) {
      const found = i === 0 ? (text.startsWith(part) ? 0 : -1) : text.indexOf(part, at)
      if (found < 0) return false
      at = found + part.length
    }
    return text.endsWith(outside[outside.length - 1] as string)
  })
}

/** The patch with trailing spaces on one of its context lines, or null (half the time, or none). */
function damage(patch: string, next: () => number): string | null {
  const lines = patch.split('\n')
  const context = lines.flatMap((line, i) =>
    line.startsWith(' ') && line.trim() !== '' ? [i] : [],
  )
  if (context.length === 0 || next() < 0.5) return null
  const at = context[Math.floor(next() * context.length)] as number
  lines[at] = `${lines[at] as string}  `
  return lines.join('\n')
}

describe('patchloom and git apply on patches git wrote', () => {
  it('agree wherever both apply, and differ only as documented', async () => {
    const scratch = await mkdtemp(path.join(tmpdir(), 'patchloom-git-differential-'))
    const home = path.join(scratch, '.home')
    await mkdir(home)
    const counts = new Map<string, number>()
    const wrong: string[] = []
    try {
      for (let seed = 1; seed <= RUNS; seed++) {
        const outcome = await trial(seed, scratch, home)
        if (typeof outcome === 'string') counts.set(outcome, (counts.get(outcome) ?? 0) + 1)
        else wrong.push(outcome.wrong)
      }
    } finally {
      if (wrong.length === 0) await rm(scratch, { recursive: true, force: true })
    }
    expect(wrong, wrong.slice(0, 3).join('\n\n')).toEqual([])
    // The generator must keep producing patches both apply, or this test would prove nothing.
    const agreed = (counts.get('same') ?? 0) + (counts.get('damaged, same') ?? 0)
    expect(agreed).toBeGreaterThan(RUNS / 4)
    expect(counts.get('damaged, same') ?? 0).toBeGreaterThan(0)
  }, 120_000)
})
