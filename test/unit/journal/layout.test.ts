// Where the journal keeps things, and how a directory name tells a transaction's state.
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { layoutFor, parseEntry, txnDir } from '../../../src/journal/layout.js'

const ID = '20261130T143109123Z-k3x9q2'

describe('layoutFor and txnDir', () => {
  it('put everything under <root>/.patchloom', () => {
    const layout = layoutFor('/ws')
    expect(layout).toEqual({
      root: '/ws',
      stateDir: path.join('/ws', '.patchloom'),
      journalDir: path.join('/ws', '.patchloom', 'journal'),
      trashDir: path.join('/ws', '.patchloom', 'trash'),
      lockPath: path.join('/ws', '.patchloom', 'lock'),
    })
    expect(txnDir(layout, ID, 'committed')).toBe(path.join(layout.journalDir, ID))
    expect(txnDir(layout, ID, 'pending')).toBe(path.join(layout.journalDir, `${ID}.pending`))
    expect(txnDir(layout, ID, 'conflict')).toBe(path.join(layout.journalDir, `${ID}.conflict`))
  })
})

describe('parseEntry', () => {
  it('reads the state from the suffix', () => {
    expect(parseEntry(ID)).toEqual({ id: ID, status: 'committed' })
    expect(parseEntry(`${ID}.pending`)).toEqual({ id: ID, status: 'pending' })
    expect(parseEntry(`${ID}.conflict`)).toEqual({ id: ID, status: 'conflict' })
  })

  it('ignores anything that is not a transaction', () => {
    for (const name of [
      '.gitignore',
      'lock',
      `${ID}.tmp`,
      `${ID}.pending.conflict`,
      'x.pending',
      '',
    ])
      expect(parseEntry(name), name).toBeUndefined()
  })
})
