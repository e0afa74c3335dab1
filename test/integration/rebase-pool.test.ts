// A request verified on the worker threads whose commit finds its file changed by another
// request: verified again (on the threads too) and landed as the merge, as on the inline route
// (test/unit/engine/engine-rebase.test.ts). Needs `npm run build`.
import { readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { createEngineWithInternals } from '../../src/engine/engine.js'
import { makeTempDir } from '../helpers/tree.js'

let root = ''
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const lines = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('')
const replaceLine = (n: number, by: string) =>
  JSON.stringify({ edits: [{ path: 'a.txt', old_string: `line ${n}\n`, new_string: by }] })

it('verifies again on the pool a change whose file another commit changed', async () => {
  root = await makeTempDir('patchloom-rebase-pool-')
  await writeFile(path.join(root, 'a.txt'), lines(12))
  const engine = createEngineWithInternals({
    root,
    durability: 'fast',
    workers: { minThreads: 1, maxThreads: 2 },
  })
  try {
    let secondVerified!: () => void
    const verified = new Promise<void>((resolve) => (secondVerified = resolve))
    const first = engine.apply(replaceLine(2, 'TWO\n'), {
      route: 'pool',
      approve: async () => {
        await verified
        return true
      },
    })
    const second = engine.apply(replaceLine(10, 'TEN\n'), {
      route: 'pool',
      approve: async () => {
        secondVerified()
        await first.catch(() => undefined)
        return true
      },
    })
    const [, result] = await Promise.all([first, second])
    expect(result.warnings.map((w) => w.code)).toEqual(['file.rebased'])
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe(
      lines(12).replace('line 2\n', 'TWO\n').replace('line 10\n', 'TEN\n'),
    )
  } finally {
    await engine.close()
  }
})
