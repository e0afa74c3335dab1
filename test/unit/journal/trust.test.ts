// The per-user key that signs manifests: created on the first signature only, private
// (0600), shared by every engine of the user, refused when others could read or supply it.
import { existsSync } from 'node:fs'
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { fixedKeyTrust, keyFileTrust, keyRing, stateDirFor } from '../../../src/journal/trust.js'
import { editError, enc, recordingFs, tempWorkspace } from './fixtures.js'

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

  // The key goes through the JournalFs and is fsynced: a key lost to a power cut after a user's
  // first commit would make recovery refuse the transaction it signed.
  it('creates the key durably before signing with it: content, name and new directories synced', async () => {
    const { parent, root } = await tempWorkspace()
    const dir = path.join(parent, 'state', 'patchloom')
    const rec = recordingFs()
    const writes: unknown[][] = []
    const fs = {
      ...rec.fs,
      writeNew: (...a: Parameters<typeof rec.fs.writeNew>) => {
        writes.push(a)
        return rec.fs.writeNew(...a)
      },
    }
    await keyFileTrust(dir, root, fs).sign(BYTES)
    const key = path.join(dir, 'journal-key')
    const temp = rec.log[0]?.slice('writeNew '.length) ?? ''
    expect(temp.startsWith(`${key}.`)).toBe(true)
    expect(rec.log).toEqual([
      `writeNew ${temp}`,
      `link ${temp}`,
      `unlink ${temp}`,
      `syncDir ${dir}`,
      // mkdir -p made state/ and state/patchloom/: each name is synced in its parent.
      `syncDir ${path.join(parent, 'state')}`,
      `syncDir ${parent}`,
    ])
    expect(writes[0]?.[2]).toBe(0o600)
    expect(writes[0]?.[3]).toBe(true) // the content is fsynced before the link names it
    expect((await stat(key)).mode & 0o777).toBe(0o600)
    expect(existsSync(temp)).toBe(false)
    // A second engine reads the key and creates nothing.
    const again = recordingFs()
    await keyFileTrust(dir, root, again.fs).sign(BYTES)
    expect(again.log).toEqual([])
  })

  it('signs nothing when the key directory cannot be synced, and leaves no temp file', async () => {
    const { parent, root } = await tempWorkspace()
    const dir = path.join(parent, 'state')
    const rec = recordingFs({ fail: (c) => (c.method === 'syncDir' ? 'EIO' : undefined) })
    const error = await editError(keyFileTrust(dir, root, rec.fs).sign(BYTES))
    expect(error.code).toBe('JOURNAL_KEY_UNAVAILABLE')
    expect(error.message).toContain('EIO')
    expect((await readdir(dir)).filter((n) => n !== 'journal-key')).toEqual([])
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

describe('keyRing', () => {
  it('reads the key once for every workspace that shares it, each MAC bound to its own root', async () => {
    const { parent, root } = await tempWorkspace()
    const dir = path.join(parent, 'state')
    const other = path.join(parent, 'other')
    await mkdir(other)
    const ring = keyRing()
    const mac = await keyFileTrust(dir, root, undefined, ring).sign(BYTES)
    expect(await keyFileTrust(dir, root).verify(BYTES, mac)).toBe(true)
    // Readable by others from now on: a fresh trust refuses it, the ring already holds the key.
    await chmod(path.join(dir, 'journal-key'), 0o644)
    expect((await editError(keyFileTrust(dir, other).sign(BYTES))).code).toBe(
      'JOURNAL_KEY_UNAVAILABLE',
    )
    const shared = keyFileTrust(dir, other, undefined, ring)
    const otherMac = await shared.sign(BYTES)
    expect(otherMac).not.toBe(mac)
    expect(await shared.verify(BYTES, otherMac)).toBe(true)
    expect(await shared.verify(BYTES, mac)).toBe(false)
  })

  it('still refuses the key to a workspace that holds the key directory', async () => {
    const { parent, root } = await tempWorkspace()
    const dir = path.join(parent, 'state')
    const ring = keyRing()
    const mac = await keyFileTrust(dir, root, undefined, ring).sign(BYTES)
    const holder = keyFileTrust(dir, parent, undefined, ring)
    const error = await editError(holder.sign(BYTES))
    expect(error.code).toBe('JOURNAL_KEY_UNAVAILABLE')
    expect(error.message).toContain('inside the workspace')
    // Not even a MAC made with the real key for that root passes there.
    const key = Buffer.from((await readFile(path.join(dir, 'journal-key'), 'utf8')).trim(), 'hex')
    const forParent = await fixedKeyTrust(key, parent).sign(BYTES)
    expect(await keyFileTrust(dir, root, undefined, ring).verify(BYTES, mac)).toBe(true)
    expect(await holder.verify(BYTES, forParent)).toBe(false)
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
