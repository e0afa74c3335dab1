// Requests with ApplyOptions.finalNewline 'keep', as data: the files before, the patch, the files
// the format's own rule writes and the files kept. test/unit/engine/final-newline.test.ts runs
// them inline, test/integration/final-newline-pool.test.ts on the worker threads.

export interface FinalNewlineCase {
  readonly name: string
  readonly format: 'codex' | 'unified'
  readonly files: Readonly<Record<string, string>>
  readonly patch: string
  /** The files after the request with the format's rule ('format', the default). */
  readonly byFormat: Readonly<Record<string, string>>
  /** The files after the request with 'keep'. */
  readonly kept: Readonly<Record<string, string>>
}

const codex = (...body: string[]) => ['*** Begin Patch', ...body, '*** End Patch', ''].join('\n')

export const FINAL_NEWLINE_CASES: readonly FinalNewlineCase[] = [
  {
    name: 'a Codex hunk reaching the last line as context',
    format: 'codex',
    files: { 'bare.txt': 'one\ntwo\nlast', 'crlf.txt': 'a\r\nb\r\nc' },
    patch: codex(
      '*** Update File: bare.txt',
      '@@',
      '-two',
      '+TWO',
      ' last',
      '*** Update File: crlf.txt',
      '@@',
      ' b',
      '-c',
      '+C',
      '*** End of File',
    ),
    byFormat: { 'bare.txt': 'one\nTWO\nlast\n', 'crlf.txt': 'a\r\nb\r\nC\r\n' },
    kept: { 'bare.txt': 'one\nTWO\nlast', 'crlf.txt': 'a\r\nb\r\nC' },
  },
  {
    name: 'Codex lines added after an unterminated last line, and a file that ends in a newline',
    format: 'codex',
    files: { 'add.txt': 'x\ny', 'ends.txt': 'p\nq\n' },
    patch: codex(
      '*** Update File: add.txt',
      '@@',
      ' y',
      '+z',
      '*** Update File: ends.txt',
      '@@',
      ' p',
      '-q',
      '+Q',
      '*** Add File: new.txt',
      '+fresh',
    ),
    byFormat: { 'add.txt': 'x\ny\nz\n', 'ends.txt': 'p\nQ\n', 'new.txt': 'fresh\n' },
    kept: { 'add.txt': 'x\ny\nz', 'ends.txt': 'p\nQ\n', 'new.txt': 'fresh\n' },
  },
  {
    name: "a unified diff's no-newline markers, both ways",
    format: 'unified',
    files: { 'gain.txt': 'a\nb', 'lose.txt': 'c\nd\n' },
    patch: [
      'diff --git a/gain.txt b/gain.txt',
      '--- a/gain.txt',
      '+++ b/gain.txt',
      '@@ -1,2 +1,2 @@',
      ' a',
      '-b',
      '\\ No newline at end of file',
      '+B',
      'diff --git a/lose.txt b/lose.txt',
      '--- a/lose.txt',
      '+++ b/lose.txt',
      '@@ -1,2 +1,2 @@',
      ' c',
      '-d',
      '+D',
      '\\ No newline at end of file',
      '',
    ].join('\n'),
    byFormat: { 'gain.txt': 'a\nB\n', 'lose.txt': 'c\nD' },
    kept: { 'gain.txt': 'a\nB', 'lose.txt': 'c\nD\n' },
  },
]
