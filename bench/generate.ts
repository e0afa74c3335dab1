// Seeded synthetic workspaces and patches for the benches (nothing is checked in). Files look like
// code: indented blocks with repeated boilerplate, so matching faces realistic repetition; each
// hunk changes a line whose surrounding 3 lines are unique (a numbered function header), so every
// patch applies unambiguously.
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'

/** mulberry32: small, fast, good enough for test data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export interface GeneratedFile {
  readonly path: string
  readonly lines: readonly string[]
}

const BODY = ['  const value = input ?? defaults', '  if (!value) return null', '  log.debug(value)', '  return value']

/** A file of `lineCount` lines made of numbered functions with repetitive bodies. */
export function generateFile(index: number, lineCount: number, random: () => number): GeneratedFile {
  const lines: string[] = []
  let fn = 0
  while (lines.length < lineCount) {
    lines.push(`export function f${index}_${fn++}(input: number) {`)
    const bodyLength = 2 + Math.floor(random() * BODY.length)
    for (let i = 0; i < bodyLength; i++) lines.push(BODY[i % BODY.length] as string)
    lines.push('}', '')
  }
  return { path: `src/mod${index}/file${index}.ts`, lines: lines.slice(0, lineCount) }
}

export interface Workspace {
  readonly files: readonly GeneratedFile[]
}

export function generateWorkspace(fileCount: number, linesPerFile: number, seed = 1): Workspace {
  const random = prng(seed)
  return { files: Array.from({ length: fileCount }, (_, i) => generateFile(i, linesPerFile, random)) }
}

export async function writeWorkspace(root: string, ws: Workspace): Promise<void> {
  for (const file of ws.files) {
    await mkdir(path.dirname(path.join(root, file.path)), { recursive: true })
    await writeFile(path.join(root, file.path), file.lines.join('\n') + '\n')
  }
}

interface Edit {
  /** 0-based index of the function header line that is changed. */
  readonly start: number
}

/** Picks `hunksPerFile` header lines spread over the file. */
function pickEdits(file: GeneratedFile, hunksPerFile: number): Edit[] {
  const headers = file.lines.flatMap((l, i) => (l.startsWith('export function') ? [i] : []))
  const step = Math.max(1, Math.floor(headers.length / hunksPerFile))
  const edits: Edit[] = []
  for (let h = 0; h < hunksPerFile && h * step < headers.length; h++) edits.push({ start: headers[h * step] as number })
  return edits
}

const renamed = (line: string) => line.replace('(input: number)', '(input: number, options?: Options)')

/** A Codex patch changing `hunksPerFile` function signatures in each of the first `fileCount` files. */
export function codexPatch(ws: Workspace, fileCount: number, hunksPerFile: number): string {
  const out = ['*** Begin Patch']
  for (const file of ws.files.slice(0, fileCount)) {
    out.push(`*** Update File: ${file.path}`)
    for (const { start } of pickEdits(file, hunksPerFile)) {
      out.push('@@')
      const line = file.lines[start] as string
      out.push(`-${line}`, `+${renamed(line)}`)
      for (const ctx of file.lines.slice(start + 1, start + 3)) out.push(` ${ctx}`)
    }
  }
  out.push('*** End Patch')
  return out.join('\n') + '\n'
}

/** The same change as a git-style unified diff. */
export function unifiedPatch(ws: Workspace, fileCount: number, hunksPerFile: number): string {
  const out: string[] = []
  for (const file of ws.files.slice(0, fileCount)) {
    out.push(`diff --git a/${file.path} b/${file.path}`, `--- a/${file.path}`, `+++ b/${file.path}`)
    for (const { start } of pickEdits(file, hunksPerFile)) {
      const from = Math.max(0, start - 3)
      const to = Math.min(file.lines.length, start + 4)
      const count = to - from
      out.push(`@@ -${from + 1},${count} +${from + 1},${count} @@`)
      for (let i = from; i < to; i++) {
        const line = file.lines[i] as string
        if (i === start) out.push(`-${line}`, `+${renamed(line)}`)
        else out.push(` ${line}`)
      }
    }
  }
  return out.join('\n') + '\n'
}
