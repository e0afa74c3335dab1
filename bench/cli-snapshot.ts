// A private copy of the built CLI for a bench to spawn: bin/, the bundle (dist/cli), the library
// and workers (dist/src, dist/workers), package.json, node_modules linked. Others rebuild the
// shared dist/ while a bench runs; a spawned CLI must not load a half-written module mid-table.
import { cp, symlink } from 'node:fs/promises'
import path from 'node:path'

/** The parts of the repository the CLI needs at run time. */
export const CLI_PARTS = ['bin', 'dist/cli', 'dist/src', 'dist/workers', 'package.json'] as const

/** Copies the CLI (and `extra` repository paths) under `dest`; returns its entry point. */
export async function snapshotCli(
  repo: string,
  dest: string,
  extra: readonly string[] = [],
): Promise<string> {
  for (const part of [...CLI_PARTS, ...extra]) {
    await cp(path.join(repo, part), path.join(dest, part), { recursive: true })
  }
  await symlink(path.join(repo, 'node_modules'), path.join(dest, 'node_modules'), 'dir')
  return path.join(dest, 'bin', 'patchloom.js')
}
