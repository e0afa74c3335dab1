// The text editor's view command: a file as `cat -n` shows it (the line number right-aligned in
// six columns, a tab, the line), a view_range of it, cut at max_characters; or a directory's
// files and directories two levels deep, hidden entries and node_modules left out. A file view
// goes through readForAgent, so it counts as this agent's read (read-before-write) and keeps the
// version for rebasing. fileView is also what a refusal or an undo shows of a file.
import { lstatSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { resolve as resolvePath } from 'node:path'
import { DEFAULT_DENY_GLOBS } from '../defaults.js'
import { readForAgent } from '../server/read.js'
import { compileGlobs } from '../workspace/glob.js'
import type { Session } from './session.js'

/** What one command answers: the tool_result's content, and whether it is an error. */
export interface Reply {
  readonly content: string
  readonly isError: boolean
}

/** Entries a directory view lists before it says how many more there are. */
const MAX_ENTRIES = 1000
/** Width of `cat -n`'s line numbers. */
const NUMBER_WIDTH = 6

const isDenied = compileGlobs(DEFAULT_DENY_GLOBS)

export async function view(
  session: Session,
  path: string,
  range: readonly [number, number] | undefined,
  maxCharacters: number | undefined,
): Promise<Reply> {
  const { workspace, agent } = session
  // A directory may be named with a trailing slash, which names no file to the sandbox.
  const target = path.length > 1 ? path.replace(/\/+$/, '') : path
  const resolved = isRoot(session, target) ? null : await workspace.resolve(target)
  if (resolved === null || isDirectory(resolved.abs)) {
    if (range !== undefined) {
      return error(
        `${path} is a directory, and view_range applies to files only; view the directory without it.`,
      )
    }
    const listing = await listDirectory(resolved?.abs ?? workspace.root, resolved?.rel ?? '', path)
    return { content: listing, isError: false }
  }
  const rel = resolved.rel
  const before = workspace.memory.seen(agent, rel)
  const file = await readForAgent(workspace, agent, target)
  const count = file.lines.length
  const window = range === undefined ? { first: 1, last: count } : checkRange(range, count, path)
  if (typeof window === 'string') {
    // Nothing of the file was shown: it does not count as read (DECISIONS.md D-163).
    workspace.memory.see(agent, file.rel, before ?? null)
    return error(window)
  }
  return { content: fileView(path, file.lines, window, maxCharacters), isError: false }
}

/** The `cat -n` view of lines first..last of a file, cut at maxCharacters with a note saying so. */
export function fileView(
  path: string,
  lines: readonly string[],
  window: { readonly first: number; readonly last: number },
  maxCharacters: number | undefined,
): string {
  const count = lines.length
  if (count === 0) return `The file ${path} is empty.`
  const { first, last } = window
  const whole = first === 1 && last === count
  const header = `Here's the result of running \`cat -n\` on ${path}${whole ? '' : ` (lines ${first}-${last} of ${count})`}:`
  const rows = numbered(lines.slice(first - 1, last), first)
  const listing = rows.join('\n')
  if (maxCharacters === undefined || listing.length <= maxCharacters) return `${header}\n${listing}`
  let length = -1
  let kept = 0
  while (kept < rows.length && length + 1 + (rows[kept] as string).length <= maxCharacters) {
    length += 1 + (rows[kept] as string).length
    kept++
  }
  const lastWhole = first + kept - 1
  const note = `[The view was cut at max_characters (${maxCharacters} characters)`
  if (kept === 0) {
    const after =
      first < last
        ? ` View the lines after it with view_range [${first + 1}, ${last === count ? -1 : last}].`
        : ''
    return `${header}\n${listing.slice(0, maxCharacters)}\n${note}: line ${first} is longer than that, and only its start is shown.${after}]`
  }
  const shown = rows.slice(0, kept).join('\n')
  const which = kept === 1 ? `line ${first}` : `lines ${first}-${lastWhole}`
  return `${header}\n${shown}\n${note}: ${which} of ${count} ${kept === 1 ? 'is' : 'are'} shown. View the rest with view_range [${lastWhole + 1}, ${last === count ? -1 : last}].]`
}

/** Lines numbered from `first` as `cat -n` numbers them. */
export function numbered(lines: readonly string[], first: number): string[] {
  return lines.map((text, i) => `${String(first + i).padStart(NUMBER_WIDTH)}\t${text}`)
}

/** The window a view_range names, or why it is out of the file's range. */
function checkRange(
  range: readonly [number, number],
  count: number,
  path: string,
): { first: number; last: number } | string {
  const [first, last] = range
  const shown = `[${first}, ${last}]`
  if (count === 0) {
    return `Invalid view_range ${shown}: ${path} is empty, so it has no lines; view it without view_range.`
  }
  if (first < 1 || first > count) {
    return `Invalid view_range ${shown}: its first element ${first} should be within the lines of ${path}, [1, ${count}].`
  }
  if (last === -1) return { first, last: count }
  if (last < first) {
    return `Invalid view_range ${shown}: its second element ${last} should be at least its first element ${first}, or -1 to read to the end.`
  }
  if (last > count) {
    return `Invalid view_range ${shown}: its second element ${last} is past the last line of ${path}, ${count}; give ${count} or -1.`
  }
  return { first, last }
}

/** Whether the path names the workspace root itself (which the sandbox resolves for no file). */
function isRoot(session: Session, path: string): boolean {
  const abs = resolvePath(session.workspace.root, path)
  return abs === session.workspace.root || abs === resolvePath(session.workspace.engine.root)
}

function isDirectory(abs: string): boolean {
  try {
    return lstatSync(abs).isDirectory()
  } catch {
    return false
  }
}

/**
 * Files and directories up to two levels below `abs`, each as the model named the directory
 * plus its relative path (directories end in '/'), sorted by name; hidden entries, node_modules
 * and denied paths are left out and counted.
 */
async function listDirectory(abs: string, rel: string, path: string): Promise<string> {
  const base = path.length > 1 ? path.replace(/\/+$/, '') : path
  const out: string[] = []
  let hidden = 0
  let nodeModules = 0
  let more = 0
  const walk = async (dirAbs: string, dirRel: string, shown: string, depth: number) => {
    let entries
    try {
      entries = await readdir(dirAbs, { withFileTypes: true })
    } catch (error) {
      out.push(`${shown}/ (not readable: ${(error as NodeJS.ErrnoException).code ?? 'error'})`)
      return
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const entry of entries) {
      const entryRel = dirRel === '' ? entry.name : `${dirRel}/${entry.name}`
      if (entry.name.startsWith('.') || isDenied(entryRel) !== undefined) {
        hidden++
        continue
      }
      if (entry.name === 'node_modules') {
        nodeModules++
        continue
      }
      if (out.length >= MAX_ENTRIES) {
        more++
        continue
      }
      const entryShown = `${shown}/${entry.name}`
      if (entry.isDirectory()) {
        out.push(`${entryShown}/`)
        if (depth < 2) await walk(`${dirAbs}/${entry.name}`, entryRel, entryShown, depth + 1)
      } else {
        out.push(entryShown)
      }
    }
  }
  await walk(abs, rel, base, 1)
  const skipped: string[] = []
  if (hidden > 0) skipped.push(`${hidden} hidden ${hidden === 1 ? 'entry' : 'entries'}`)
  if (nodeModules > 0) {
    skipped.push(`${nodeModules} node_modules ${nodeModules === 1 ? 'directory' : 'directories'}`)
  }
  const lines = [
    `Here are the files and directories up to 2 levels deep in ${path}, excluding hidden items and node_modules:`,
    ...(out.length === 0 ? ['(no files or directories to show)'] : out),
  ]
  if (more > 0) {
    lines.push(
      `... and ${more} more ${more === 1 ? 'entry' : 'entries'}, not listed; view a subdirectory to see them.`,
    )
  }
  if (skipped.length > 0) lines.push(`Skipped: ${skipped.join(', ')}.`)
  return lines.join('\n')
}

function error(content: string): Reply {
  return { content, isError: true }
}
