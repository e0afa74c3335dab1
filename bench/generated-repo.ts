// A seeded repository for the large-patch benches (large.bench, warm.bench): N generated files
// committed with real git, the same signature change made to every file, the patch taken from
// `git diff`, and the work tree back at HEAD. Also the git helpers they share: a configuration-free
// environment, a git call that throws with git's error line, and a tree id of the work tree as
// it is (through a scratch index). The benches time and judge; this only builds.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import {
  changedTexts,
  generateRepository,
  signatureChanges,
  writeWorkspace,
  type BlockChange,
  type Workspace,
} from './generate.js'

/** git reads no user or system configuration here, so nobody's diff settings change the patch. */
export const GIT_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
  GIT_AUTHOR_DATE: '2026-12-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-12-01T00:00:00Z',
}

/** The reason a command failed, from its stderr: the error line, not a stack's first line. */
export function failureReason(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim())
  return lines.find((l) => /error|fatal|failed|rejected|refus/i.test(l)) ?? lines[0] ?? ''
}

export function git(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = GIT_ENV,
): string {
  const child = spawnSync('git', args, { cwd, env, encoding: 'utf8', maxBuffer: 64 << 20 })
  if (child.status !== 0)
    throw new Error(`git ${args.join(' ')} exited ${child.status}: ${failureReason(child.stderr)}`)
  return child.stdout
}

/** The tree of the work tree as it is, through a scratch copy of the index (the real one stays). */
export function worktreeTree(root: string, scratch: string): string {
  const index = path.join(scratch, 'tree-index')
  copyFileSync(path.join(root, '.git', 'index'), index)
  const env = { ...GIT_ENV, GIT_INDEX_FILE: index }
  git(['add', '-A'], root, env)
  return git(['write-tree'], root, env).trim()
}

export interface GeneratedChange {
  /** A fresh directory under the scratch root: the repository and the patch are inside. */
  readonly scratch: string
  readonly root: string
  readonly ws: Workspace
  readonly changes: readonly BlockChange[]
  /** `git diff` of the change, written here. */
  readonly diffFile: string
  readonly unified: string
  /** HEAD's tree: where a check must leave the work tree. */
  readonly headTree: string
  /** The tree with the change made: where an apply must leave it. */
  readonly changedTree: string
}

/**
 * Builds the repository (`.patchloom/` excluded from git, since the engines' journal lives in the
 * work tree), makes the change, takes its diff and resets to HEAD.
 */
export async function generatedChange(
  scratchRoot: string,
  files: number,
  lines: number,
  hunks: number,
  seed: number,
): Promise<GeneratedChange> {
  const scratch = await mkdtemp(path.join(scratchRoot, `n${files}-`))
  const root = path.join(scratch, 'repo')
  const ws = generateRepository(files, lines, seed)
  await writeWorkspace(root, ws)
  git(['init', '-q'], root)
  await mkdir(path.join(root, '.git', 'info'), { recursive: true })
  writeFileSync(path.join(root, '.git', 'info', 'exclude'), '.patchloom/\n')
  git(['add', '-A'], root)
  git(['commit', '-q', '-m', 'generated'], root)
  const headTree = git(['rev-parse', 'HEAD^{tree}'], root).trim()
  const changes = signatureChanges(ws, files, hunks)
  for (const [file, text] of changedTexts(ws, changes)) await writeFile(path.join(root, file), text)
  const diffFile = path.join(scratch, 'change.diff')
  git(['diff', '--no-color', '--no-ext-diff', `--output=${diffFile}`], root)
  const changedTree = worktreeTree(root, scratch)
  git(['reset', '--hard', '-q'], root)
  return {
    scratch,
    root,
    ws,
    changes,
    diffFile,
    unified: readFileSync(diffFile, 'utf8'),
    headTree,
    changedTree,
  }
}
