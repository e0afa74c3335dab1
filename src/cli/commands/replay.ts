// `patchloom replay`: the history replay (src/replay/replay.ts) with a progress line on a
// terminal, then the report; --json prints the report as one JSON line. --out writes the final
// tree (files, modes, symlinks; a submodule pointer becomes an empty directory, as a checkout
// without the submodule has it). Exit 0 when every commit is exact (refused hunks and fallbacks
// are counted, not failures), 1 when any file differs or any hunk is misplaced.
import { chmod, mkdir, readdir, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { EditError, isEditError } from '../../errors.js'
import { countCommits } from '../../replay/git-history.js'
import { replay, type ReplayReport } from '../../replay/replay.js'
import type { Tree } from '../../replay/tree.js'
import type { ReplayCommand } from '../replay-args.js'
import { EXIT } from '../render.js'
import type { CliIo } from '../io.js'

/** Mismatches listed in the human report; --json lists them all. */
const LISTED = 20

export async function runReplay(cmd: ReplayCommand, io: CliIo): Promise<number> {
  try {
    return await replayAndReport(cmd, io)
  } catch (error) {
    // A REPO that is no repository or a range git does not know is a command-line mistake here.
    if (isEditError(error) && error.code === 'CONFIG_INVALID') {
      throw new EditError('USAGE_INVALID', error.message.replace(/^Invalid option: /, ''), {
        hint: error.hint,
        cause: error,
      })
    }
    throw error
  }
}

async function replayAndReport(cmd: ReplayCommand, io: CliIo): Promise<number> {
  const repo = path.resolve(io.cwd, cmd.repo)
  const out = cmd.out === null ? null : path.resolve(io.cwd, cmd.out)
  if (out !== null) await checkOutDir(out)
  const progress = io.stderrIsTTY === true && !cmd.json
  const total = progress ? await countCommits(repo, cmd.range ?? 'HEAD') : null
  const limit = cmd.maxCommits ?? Infinity
  const run = replay({
    repo,
    via: cmd.via,
    workers: cmd.workers,
    ...(cmd.range === null ? {} : { range: cmd.range }),
    ...(cmd.maxCommits === null ? {} : { maxCommits: cmd.maxCommits }),
  })
  const started = performance.now()
  let last = 0
  let tree: Tree | null = null
  let step = await run.next()
  for (; !step.done; step = await run.next()) {
    tree = step.value.tree
    const now = performance.now()
    if (progress && (now - last > 100 || step.value.index === 0)) {
      last = now
      io.stderr(
        `\r${progressLine(step.value.index + 1, total === null ? null : Math.min(total, limit), now - started)}`,
      )
    }
  }
  if (progress) io.stderr('\r\x1b[K')
  const report = step.value
  if (out !== null && tree !== null) await writeTree(out, tree)
  io.stdout(cmd.json ? `${JSON.stringify(jsonReport(report))}\n` : humanReport(report, out))
  return report.mismatches.length === 0 && report.misplacedHunks === 0 ? EXIT.OK : EXIT.REJECTED
}

function progressLine(done: number, total: number | null, elapsedMs: number): string {
  const rate = done / Math.max(elapsedMs / 1000, 1e-3)
  if (total === null || total === 0) return `replay: ${done} commits, ${rate.toFixed(0)}/s`
  const width = 30
  const filled = Math.round((width * Math.min(done, total)) / total)
  const eta = Math.max(0, (total - done) / rate)
  return `replay [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} commits, ${rate.toFixed(0)}/s, ETA ${eta.toFixed(0)} s`
}

/** The --json object: the report's figures with the rates. */
export function jsonReport(report: ReplayReport): Record<string, unknown> {
  const seconds = report.wallMs / 1000
  return {
    ok: report.mismatches.length === 0 && report.misplacedHunks === 0,
    repo: report.repo,
    range: report.range,
    via: report.via,
    commits: report.commits,
    exactCommits: report.exactCommits,
    files: report.files,
    hunks: report.hunks,
    bytes: report.bytes,
    formatHunks: report.formatHunks,
    refusedHunks: report.refusedHunks,
    refusals: report.refusals,
    misplacedHunks: report.misplacedHunks,
    misplaced: report.misplaced,
    fallbacks: report.fallbacks,
    fallbackReasons: report.fallbackReasons,
    mismatches: report.mismatches,
    wallMs: Math.round(report.wallMs),
    commitsPerSecond: Math.round(report.commits / seconds),
    hunksPerSecond: Math.round(report.hunks / seconds),
  }
}

/** `: a 3, b 1` (most first), or '' when empty; `lead` goes before the first entry. */
function byKey(counts: Readonly<Record<string, number>>, lead = ': '): string {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
  if (entries.length === 0) return ''
  return `${lead === '' ? ' ' : lead}${entries.map(([k, v]) => `${k} ${v.toLocaleString('en-US')}`).join(', ')}`
}

export function humanReport(report: ReplayReport, out: string | null): string {
  const n = (x: number) => x.toLocaleString('en-US')
  const seconds = report.wallMs / 1000
  const share = report.commits === 0 ? 100 : (100 * report.exactCommits) / report.commits
  const lines = [
    `replayed ${n(report.commits)} commits of ${report.repo} (${report.range}, via ${report.via}) in ${seconds.toFixed(2)} s: ${n(Math.round(report.commits / seconds))} commits/s, ${n(Math.round(report.hunks / seconds))} hunks/s`,
    `  files ${n(report.files)}, hunks ${n(report.hunks)}, diff bytes ${n(report.bytes)}`,
    `  exact commits ${n(report.exactCommits)} (${share.toFixed(1)}%), refused hunks ${n(report.refusedHunks)}, misplaced hunks ${n(report.misplacedHunks)}, fallbacks ${n(report.fallbacks)}, mismatches ${n(report.mismatches.length)}`,
  ]
  if (report.via !== 'unified') {
    const refusedShare =
      report.formatHunks === 0 ? 0 : (100 * report.refusedHunks) / report.formatHunks
    lines.push(
      `  ${report.via}: ${n(report.formatHunks)} hunks through the format, ${n(report.refusedHunks)} refused (${refusedShare.toFixed(1)}%${byKey(report.refusals)})`,
    )
  }
  if (report.fallbacks > 0) lines.push(`  fallbacks by reason:${byKey(report.fallbackReasons, '')}`)
  for (const m of report.misplaced.slice(0, LISTED)) {
    lines.push(
      `  misplaced ${m.commit.slice(0, 12)} ${m.path} hunk ${m.hunk}: git has it at line ${m.expectedLine}, the matcher placed it at line ${m.actualLine}`,
    )
  }
  for (const m of report.mismatches.slice(0, LISTED)) {
    const where = m.line === null ? m.path : `${m.path}:${m.line}`
    lines.push(
      `  mismatch ${m.commit.slice(0, 12)} ${where}: git has ${JSON.stringify(m.expected)}, replay has ${JSON.stringify(m.actual)}`,
    )
  }
  if (report.mismatches.length > LISTED)
    lines.push(`  ... and ${n(report.mismatches.length - LISTED)} more (--json lists them all)`)
  if (out !== null) lines.push(`  final tree written to ${out}`)
  return `${lines.join('\n')}\n`
}

async function checkOutDir(out: string): Promise<void> {
  const entries = await readdir(out).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return []
    throw new EditError(
      'USAGE_INVALID',
      `--out ${out} cannot be read (${error.code ?? error.message}).`,
    )
  })
  if (entries.length > 0)
    throw new EditError(
      'USAGE_INVALID',
      `--out ${out} is not empty; give a new or empty directory.`,
    )
}

async function writeTree(out: string, tree: Tree): Promise<void> {
  await mkdir(out, { recursive: true })
  for (const [rel, file] of [...tree].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const abs = path.join(out, ...rel.split('/'))
    if (!abs.startsWith(out + path.sep))
      throw new EditError(
        'PATH_OUTSIDE_ROOT',
        `The tree path ${rel} would be written outside ${out}.`,
        { path: rel },
      )
    await mkdir(path.dirname(abs), { recursive: true })
    if (file.bytes === null) await mkdir(abs, { recursive: true })
    else if (file.mode === '120000') await symlink(Buffer.from(file.bytes), abs)
    else {
      await writeFile(abs, file.bytes)
      if (file.mode === '100755') await chmod(abs, 0o755)
    }
  }
}
