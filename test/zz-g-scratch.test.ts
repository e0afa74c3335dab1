import { it } from 'vitest'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createTwoFilesPatch, formatPatch, structuredPatch } from 'diff'
import { createEngine } from '../src/coordinator/engine.js'
import { makeTempDir } from './helpers/tree.js'

it('scratch', async () => {
  const base = await makeTempDir('g-scratch-')
  const root = join(base, 'root'); await mkdir(root)
  const engine = createEngine({ root, pool: false })
  const cases: [string, string][] = [["c\n}\n\nb\n","  d\nb\n}\n"], ["","foo()\na\na\n}\nc\na\n}\n"], ["", "}\n\né\nc\nb\n"]]
  for (const [a, b] of cases) {
    const hunks = structuredPatch('f', 'f', a, b, '', '', { context: 3 }).hunks
    const patch = ['*** Begin Patch', '*** Update File: f', ...hunks.flatMap((h) => ['@@', ...h.lines.filter((l) => !l.startsWith('\\'))]), '*** End Patch', ''].join('\n')
    await writeFile(join(root, 'f'), a)
    try { await engine.apply(patch); console.log(JSON.stringify({ a, b, patch, got: await readFile(join(root, 'f'), 'utf8') })) } catch (e) { console.log('ERR', JSON.stringify({a, b, patch}), (e as Error).message) }
  }
  // multi-file counterexample
  const [a, b, g, h] = ["b","  d\nb\n}\n","\nx \n\n}\na\nb\nb\nx ","b\nfoo()\nfoo()\nx \na\nfoo()\n"]
  const fPatch = structuredPatch('a/f', 'b/f', a, b)
  const last = fPatch.hunks[fPatch.hunks.length - 1]!
  const index = last.lines.findIndex((line) => line.startsWith('-') || line.startsWith(' '))
  last.lines[index] = `${last.lines[index]![0]}zzz not in the file`
  const patch = createTwoFilesPatch('a/g', 'b/g', g, h) + formatPatch(fPatch)
  await writeFile(join(root, 'f'), a); await writeFile(join(root, 'g'), g)
  try { await engine.apply(patch); console.log('APPLIED', patch) } catch (e) { console.log('ERR2', (e as any).code, (e as Error).message, JSON.stringify(patch)) }
})
