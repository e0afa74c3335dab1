// The matching ladder's passes, strict to lenient. Each pass maps a line to a key; two lines
// match under a pass when their keys are equal. The first pass that finds any match decides
// (see src/match/). 'fold' includes 'trim': it is the most lenient pass.

export type MatchPass = 'exact' | 'trim-end' | 'trim' | 'fold'

export const MATCH_PASSES: readonly MatchPass[] = ['exact', 'trim-end', 'trim', 'fold']

// Dashes U+2010..U+2015 and minus U+2212 -> '-'; curly quotes -> ASCII; odd spaces -> ' '.
const FOLD_RE =
  /[\u2010-\u2015\u2212\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u00a0\u2002-\u200a\u202f\u205f\u3000]/g

function foldChar(c: string): string {
  const code = c.charCodeAt(0)
  if ((code >= 0x2010 && code <= 0x2015) || code === 0x2212) return '-'
  if (code >= 0x2018 && code <= 0x201b) return "'"
  if (code >= 0x201c && code <= 0x201f) return '"'
  return ' '
}

/** Folds Unicode dashes, quotes and odd spaces to ASCII without trimming. */
export function foldPunctuation(text: string): string {
  return text.replace(FOLD_RE, foldChar)
}

/** Whether every UTF-16 unit is below U+00A0, where folding cannot change anything. */
export function isPlainLine(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 0xa0) return false
  return true
}

export function normalizeLine(text: string, pass: MatchPass): string {
  switch (pass) {
    case 'exact':
      return text
    case 'trim-end':
      return text.trimEnd()
    case 'trim':
      return text.trim()
    case 'fold':
      return foldPunctuation(text).trim()
  }
}
