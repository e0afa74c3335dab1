// Minimal glob matching for deny rules on workspace-relative, '/'-separated paths:
// `**` spans any number of segments, `*` and `?` stay within one segment. No braces or classes:
// deny rules are short and a dependency is not worth it. Matching ignores case, so `.GIT/config`
// cannot slip past `.git/**` on a case-insensitive filesystem (macOS, Windows).

export function globToRegExp(glob: string): RegExp {
  let re = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string
    if (c === '*') {
      if (glob[i + 1] === '*') {
        // '**/' matches zero or more leading segments; a trailing '**' matches the rest.
        if (glob[i + 2] === '/') {
          re += '(?:.*/)?'
          i += 2
        } else {
          re += '.*'
          i += 1
        }
      } else {
        re += '[^/]*'
      }
    } else if (c === '?') {
      re += '[^/]'
    } else {
      re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
    }
  }
  return new RegExp(`^${re}$`, 'i')
}

export function compileGlobs(globs: readonly string[]): (relPath: string) => string | undefined {
  const compiled = globs.map((g) => ({ glob: g, re: globToRegExp(g) }))
  return (relPath) => compiled.find((c) => c.re.test(relPath))?.glob
}
