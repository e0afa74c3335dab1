// The permission bits a change writes a file with, from the bits it had and the mode a patch
// states: git records only the executable bit (100644 or 100755), so that is all a mode changes.

/** What a new file gets when nothing states otherwise (umask aside). */
export const DEFAULT_PERMISSIONS = 0o644

export function permissionsFor(base: number | undefined, mode: string | undefined): number {
  const start = base ?? DEFAULT_PERMISSIONS
  if (mode === undefined) return start
  // Grant x wherever r is granted, or clear all x bits.
  return mode === '100755' ? start | ((start & 0o444) >> 2) : start & ~0o111
}
