// The per-user key that signs manifests (#8): created on the first signature only, private
// (0600), shared by every engine of the user, refused when others could read or supply it.
import { existsSync } from 'node:fs'
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { keyFileTrust, stateDirFor } from '../../../src/journal/trust.js'
import { editError, enc, tempWorkspace } from './fixtures.js'

const BYTES = enc('{"version":2}')

describe('keyFileTrust', () => {
  it('creates a private key on the first signature, and verifies with it from another engine', async () => {
    const { parent, root } = await tempWorkspace()
    const dir = path.join(parent, 'state')
    const trust = keyFileTrust(dir, root)
    expect(await trust.verify(BYTES, 'ab'.repeat(32))).toBe(false)
    expect(existsSync(dir)).toBe(false) // verifying never creates the key
    const mac = await trust.sign(BYTES)
    expect(mac).toMatch(/^[0-9a-f]{64}$/)
    expect((await stat(path.join(dir, 'journal-key'))).mode & 0o777).toBe(0o600)
    const again = keyFileTrust(dir, root)
    expect(await again.verify(BYTES, mac)).toBe(true)
    expect(await again.verify(enc('{"version":3}'), mac)).toBe(false)
    // Bound to the workspace: the same bytes signed for another root do not pass here.
    expect(await keyFileTrust(dir, path.join(parent, 'other')).verify(BYTES, mac)).toBe(false)
  })

  it('refuses a key that other users may read', async () => {
    const { parent, root } = await tempWorkspace()
    const dir = path.join(parent, 'state')
    await keyFileTrust(dir, root).sign(BYTES)
    await chmod(path.join(dir, 'journal-key'), 0o644)
    const error = await editError(keyFileTrust(dir, root).sign(BYTES))
    expect(error.code).toBe('JOURNAL_KEY_UNAVAILABLE')
    expect(error.message).toContain('mode 644')
    expect(await keyFileTrust(dir, root).verify(BYTES, 'ab'.repeat(32))).toBe(false)
  })

  it('refuses a key directory inside the workspace, where a checkout could plant one', async () => {
    const { root } = await tempWorkspace()
    const dir = path.join(root, '.state')
    await mkdir(dir)
    await writeFile(path.join(dir, 'journal-key'), 'ab'.repeat(32) + '\n', { mode: 0o600 })
    const error = await editError(keyFileTrust(dir, root).sign(BYTES))
    expect(error.code).toBe('JOURNAL_KEY_UNAVAILABLE')
    expect(error.message).toContain('inside the workspace')
    expect(await readFile(path.join(dir, 'journal-key'), 'utf8')).toBe('ab'.repeat(32) + '\n')
  })
})

describe('stateDirFor', () => {
  it('takes an absolute PATCHLOOM_STATE_DIR, then XDG_STATE_HOME, then ~/.local/state', () => {
    expect(stateDirFor({ PATCHLOOM_STATE_DIR: '/keys', XDG_STATE_HOME: '/xdg' })).toBe('/keys')
    expect(stateDirFor({ PATCHLOOM_STATE_DIR: 'relative', XDG_STATE_HOME: '/xdg' })).toBe(
      path.join('/xdg', 'patchloom'),
    )
    expect(stateDirFor({})).toMatch(/\.local[/\\]state[/\\]patchloom$/)
  })
})
