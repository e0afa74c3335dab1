import { describe, expect, it } from 'vitest'
import {
  EXIT,
  exitCodeFor,
  failedResult,
  internalErrorData,
  parseOnlyResult,
  renderApplyHuman,
  renderDiagnosticsHuman,
  renderErrorHuman,
  renderJsonLine,
  renderLogHuman,
  renderParseOnlyHuman,
  renderRecoverHuman,
  renderUndoHuman,
  shellQuote,
  transactionStatus,
  undoCommandFor,
  withUndoCommand,
} from '../../../src/cli/render.js'
import { renderFileLine } from '../../../src/render/file-line.js'
import { errorData } from '../../../src/errors.js'
import type { TransactionInfo } from '../../../src/journal/records.js'
import type { ApplyResult, FileResult } from '../../../src/types.js'

const TXN = '20261130T143109123Z-k3x9q2'

const INFO: TransactionInfo = {
  id: TXN,
  status: 'committed',
  kind: 'apply',
  createdAt: '2026-11-30T14:31:09.123Z',
  files: [{ path: 'a.txt', op: 'update', additions: 1, deletions: 1 }],
  additions: 1,
  deletions: 1,
  undoable: true,
}

function file(over: Partial<FileResult> & Pick<FileResult, 'path' | 'op'>): FileResult {
  const hashes = { beforeHash: 'sha256:a', afterHash: 'sha256:b' }
  return { additions: 0, deletions: 0, ...hashes, diff: '', ...over }
}

/** The file line for a FileResult built from `over`. */
function line(over: Partial<FileResult> & Pick<FileResult, 'path' | 'op'>): string {
  return renderFileLine(file(over))
}

describe('exitCodeFor', () => {
  it('maps non-retryable rejections to 1', () => {
    expect(exitCodeFor(errorData('MATCH_NOT_FOUND', 'x'))).toBe(1)
    expect(exitCodeFor(errorData('PARSE_BAD_HEADER', 'x'))).toBe(EXIT.REJECTED)
  })

  it('maps a stale expected_hash to 1: resending it unchanged cannot succeed', () => {
    expect(exitCodeFor(errorData('FILE_HASH_MISMATCH', 'x'))).toBe(EXIT.REJECTED)
  })

  it('maps retryable errors such as FILE_CHANGED to 75', () => {
    expect(exitCodeFor(errorData('FILE_CHANGED', 'x'))).toBe(75)
    expect(exitCodeFor(errorData('WORKER_CRASHED', 'x'))).toBe(75)
    expect(exitCodeFor(errorData('JOURNAL_COMMIT_FAILED', 'x'))).toBe(75)
  })

  it('maps usage errors to 64 and internal errors to 70', () => {
    expect(exitCodeFor(errorData('USAGE_INVALID', 'x'))).toBe(64)
    expect(exitCodeFor(internalErrorData(new Error('boom')))).toBe(70)
  })
})

describe('internalErrorData', () => {
  it('wraps any thrown value as a non-retryable INTERNAL error', () => {
    expect(internalErrorData(new Error('boom'))).toMatchObject({
      code: 'INTERNAL',
      message: 'Internal error: boom',
      retryable: false,
    })
    expect(internalErrorData('text').message).toBe('Internal error: text')
  })
})

describe('renderFileLine', () => {
  it('renders each operation with its letter and counts', () => {
    expect(line({ path: 'a.txt', op: 'add', additions: 3 })).toBe('A a.txt')
    expect(line({ path: 'm.ts', op: 'update', additions: 3, deletions: 1 })).toBe('M m.ts (+3 -1)')
    expect(line({ path: 'gone', op: 'delete', deletions: 9 })).toBe('D gone')
    expect(line({ path: 'new', from: 'old', op: 'move', additions: 1, deletions: 1 })).toBe(
      'R old -> new (+1 -1)',
    )
    expect(line({ path: 'b', from: 'a', op: 'copy', additions: 2 })).toBe('C a -> b (+2 -0)')
  })

  it('marks overwrites and mode changes', () => {
    expect(line({ path: 'a', op: 'add', overwrote: true })).toBe('A a [overwrote]')
    const chmod = { modeBefore: '100644', modeAfter: '100755' }
    expect(line({ path: 's.sh', op: 'update', ...chmod })).toBe(
      'M s.sh (+0 -0) mode 100644 -> 100755',
    )
    const same = { modeBefore: '100644', modeAfter: '100644' }
    expect(line({ path: 's.sh', op: 'update', ...same })).toBe('M s.sh (+0 -0)')
    expect(line({ path: 'run', op: 'add', modeAfter: '100755' })).toBe('A run mode 100755')
    expect(line({ path: 'plain', op: 'add', modeAfter: '100644' })).toBe('A plain')
  })

  it('prints unknown counts as ? and binary changes as (binary)', () => {
    const unknown = { additions: null, deletions: null }
    expect(renderFileLine({ path: 'e.ts', op: 'update', ...unknown })).toBe('M e.ts (+? -?)')
    const binary = { ...unknown, binary: true as const }
    expect(renderFileLine({ path: 'i.png', op: 'update', ...binary })).toBe('M i.png (binary)')
    expect(renderFileLine({ path: 'i.png', op: 'add', ...binary })).toBe('A i.png (binary)')
  })
})

describe('renderApplyHuman', () => {
  const result: ApplyResult = {
    format: 'codex',
    dryRun: false,
    files: [
      file({ path: 'a.txt', op: 'add' }),
      file({ path: 'b.txt', op: 'update', additions: 1, deletions: 2 }),
    ],
    warnings: [{ code: 'match.lenient', message: 'b.txt: patch line 5 matched leniently.' }],
  }

  it('prints one line per file, then warnings', () => {
    expect(renderApplyHuman(result)).toBe(
      'A a.txt\nM b.txt (+1 -2)\nwarning match.lenient: b.txt: patch line 5 matched leniently.\n',
    )
  })

  it('says a dry run wrote nothing', () => {
    expect(renderApplyHuman({ ...result, dryRun: true, warnings: [] })).toBe(
      'A a.txt\nM b.txt (+1 -2)\ndry run: nothing written\n',
    )
  })

  it('says when there is nothing to change', () => {
    expect(renderApplyHuman({ ...result, files: [], warnings: [] })).toBe('no changes\n')
  })

  it('names the transaction and the command that undoes it, after warnings', () => {
    const committed = withUndoCommand({ ...result, transaction: TXN }, 'ws')
    expect(renderApplyHuman(committed)).toBe(
      'A a.txt\nM b.txt (+1 -2)\nwarning match.lenient: b.txt: patch line 5 matched leniently.\n' +
        `transaction ${TXN} (undo: patchloom undo ${TXN} --root ws)\n`,
    )
    // Built without withUndoCommand (no root known): the plain command.
    expect(renderApplyHuman({ ...result, warnings: [], transaction: TXN })).toBe(
      `A a.txt\nM b.txt (+1 -2)\ntransaction ${TXN} (undo: patchloom undo ${TXN})\n`,
    )
  })
})

describe('withUndoCommand', () => {
  it('adds ok, and undoCommand only when a transaction committed', () => {
    const result: ApplyResult = { format: 'codex', dryRun: true, files: [], warnings: [] }
    expect(withUndoCommand(result, 'ws')).toEqual({ ok: true, ...result })
    expect(withUndoCommand({ ...result, dryRun: false, transaction: TXN }, null)).toEqual({
      ok: true,
      ...result,
      dryRun: false,
      transaction: TXN,
      undoCommand: `patchloom undo ${TXN}`,
    })
  })
})

describe('undoCommandFor and shellQuote', () => {
  it('adds --root only when one was given, quoted for a POSIX shell when it needs it', () => {
    expect(undoCommandFor(TXN, null)).toBe(`patchloom undo ${TXN}`)
    expect(undoCommandFor(TXN, '../repo')).toBe(`patchloom undo ${TXN} --root ../repo`)
    expect(undoCommandFor(TXN, "it's here")).toBe(`patchloom undo ${TXN} --root 'it'\\''s here'`)
  })

  it('leaves plain words alone and single-quotes anything else', () => {
    expect(shellQuote('/tmp/ws-1_a.b')).toBe('/tmp/ws-1_a.b')
    expect(shellQuote('a b')).toBe("'a b'")
    expect(shellQuote('$HOME')).toBe("'$HOME'")
    expect(shellQuote('')).toBe("''")
  })
})

describe('renderUndoHuman', () => {
  it('names the undone and the new transaction, then each file', () => {
    expect(
      renderUndoHuman({
        transaction: 'T2',
        undone: TXN,
        files: [
          { path: 'new.txt', op: 'remove', beforeHash: 'sha256:b', afterHash: null },
          { path: 'a.txt', op: 'restore', beforeHash: 'sha256:b', afterHash: 'sha256:a' },
        ],
      }),
    ).toBe(`undid ${TXN} (as transaction T2)\nremoved new.txt\nrestored a.txt\n`)
  })

  it('prints the warnings of an undo that committed but is not known to be durable', () => {
    const message = 'The change is committed, but syncing .patchloom/journal failed (EIO).'
    expect(
      renderUndoHuman({
        transaction: 'T2',
        undone: TXN,
        files: [{ path: 'a.txt', op: 'restore', beforeHash: 'sha256:b', afterHash: 'sha256:a' }],
        warnings: [{ code: 'journal.not-durable', message }],
      }),
    ).toBe(
      `undid ${TXN} (as transaction T2)\nrestored a.txt\nwarning journal.not-durable: ${message}\n`,
    )
  })
})

describe('renderRecoverHuman', () => {
  it('says when there was nothing to recover', () => {
    expect(renderRecoverHuman({ rolledBack: [], conflicted: [], conflicts: [] })).toBe(
      'nothing to recover: no change was left half-done\n',
    )
  })

  it('prints the warning of a rollback whose directory sync failed', () => {
    const message = `Transaction ${TXN} was rolled back, but syncing src failed (EIO).`
    expect(
      renderRecoverHuman({
        rolledBack: [TXN],
        conflicted: [],
        conflicts: [],
        warnings: [{ code: 'journal.not-durable', message, path: 'src' }],
      }),
    ).toBe(
      `rolled back ${TXN}: it was interrupted; its files are as they were before it\nwarning journal.not-durable: ${message}\n`,
    )
  })

  it('lists rolled-back transactions, then each conflict with its backup', () => {
    const out = renderRecoverHuman({
      rolledBack: ['T1'],
      conflicted: ['T2'],
      conflicts: [
        {
          transaction: 'T2',
          path: 'a.txt',
          reason: 'it is missing; left as it is.',
          backup: '/b/0',
        },
        { transaction: 'T2', path: 'new.txt', reason: 'it is now a directory; left as it is.' },
      ],
    })
    expect(out).toBe(
      [
        'rolled back T1: it was interrupted; its files are as they were before it',
        'conflict in T2: a.txt: it is missing; left as it is.',
        '  its content before the change: /b/0',
        'conflict in T2: new.txt: it is now a directory; left as it is.',
        '2 files left in conflict: put each back as you want it (the copies above hold the content before the change), then run `patchloom recover` again.',
        '',
      ].join('\n'),
    )
  })
})

describe('renderRecoverHuman with a refused transaction', () => {
  it('says it was not acted on, with its code and how to clear it, apart from file conflicts', () => {
    const reason =
      'Transaction .patchloom/journal/T3.pending was not acted on: x. Nothing was written. If it is not a change of yours, delete .patchloom/journal/T3.pending; files it names were not touched.'
    const out = renderRecoverHuman({
      rolledBack: [],
      conflicted: ['T3'],
      conflicts: [
        {
          transaction: 'T3',
          path: '.patchloom/journal/T3.pending',
          reason,
          code: 'JOURNAL_UNTRUSTED',
        },
      ],
    })
    expect(out).toBe(`not acted on: T3 (JOURNAL_UNTRUSTED): ${reason}\n`)
  })
})

describe('transactionStatus', () => {
  it('says committed, undone by, undo of, pending or conflict', () => {
    expect(transactionStatus(INFO)).toBe('committed')
    expect(transactionStatus({ ...INFO, undoneBy: 'T9', undoable: false })).toBe('undone by T9')
    expect(transactionStatus({ ...INFO, kind: 'undo', undoes: 'T0' })).toBe('undo of T0')
    expect(transactionStatus({ ...INFO, kind: 'undo', undoes: 'T0', undoneBy: 'T9' })).toBe(
      'undo of T0, undone by T9',
    )
    expect(transactionStatus({ ...INFO, status: 'pending', undoable: false })).toBe('pending')
    expect(transactionStatus({ ...INFO, status: 'conflict', undoable: false })).toBe('conflict')
    expect(
      transactionStatus({ ...INFO, status: 'pending', undoable: false, untrusted: true }),
    ).toBe('pending, untrusted (never acted on)')
  })
})

describe('renderLogHuman', () => {
  it('prints one line per transaction with its files indented below', () => {
    const undo: TransactionInfo = {
      ...INFO,
      id: '20261130T150000000Z-bbbbbb',
      createdAt: '2026-11-30T15:00:00.000Z',
      kind: 'undo',
      undoes: TXN,
      files: [
        { path: 'old.txt', op: 'move', from: 'new.txt', additions: 1, deletions: 2 },
        { path: 'gone.txt', op: 'add', additions: 3, deletions: 0 },
      ],
      additions: 4,
      deletions: 2,
    }
    expect(renderLogHuman({ ok: true, transactions: [undo, { ...INFO, undoneBy: undo.id }] })).toBe(
      [
        `20261130T150000000Z-bbbbbb  2026-11-30T15:00:00.000Z  undo of ${TXN}  2 files  +4 -2`,
        '  move new.txt -> old.txt (+1 -2)',
        '  add gone.txt (+3 -0)',
        `${TXN}  2026-11-30T14:31:09.123Z  undone by 20261130T150000000Z-bbbbbb  1 file  +1 -1`,
        '  update a.txt (+1 -1)',
        '',
      ].join('\n'),
    )
  })

  it('says when the journal is empty, when some were left out, and when a time is unknown', () => {
    expect(renderLogHuman({ ok: true, transactions: [] })).toBe('no transactions in the journal\n')
    const corrupt: TransactionInfo = { ...INFO, status: 'conflict', createdAt: '', files: [] }
    expect(renderLogHuman({ ok: true, transactions: [corrupt], omitted: 1 })).toBe(
      `${TXN}  unknown time  conflict  0 files  +1 -1\n... 1 older transaction (see more with -n N)\n`,
    )
  })

  it('renders as one JSON line with --json', () => {
    const line = renderJsonLine({ ok: true, transactions: [INFO], omitted: 3 })
    expect(line.endsWith('\n')).toBe(true)
    expect(line.trimEnd()).not.toContain('\n')
    expect(JSON.parse(line)).toEqual({ ok: true, transactions: [INFO], omitted: 3 })
  })
})

describe('renderParseOnlyHuman', () => {
  it('lists the summaries and says nothing was read', () => {
    const out = renderParseOnlyHuman(
      parseOnlyResult('unified', [
        { path: 'new', from: 'old', op: 'move', additions: 1, deletions: 0 },
        { path: 'x', op: 'delete', additions: 0, deletions: null },
      ]),
    )
    expect(out).toBe(
      'R old -> new (+1 -0)\nD x\nparse only (unified): no files read, nothing written\n',
    )
  })
})

describe('renderErrorHuman', () => {
  it('prints the code, message, hint and each candidate', () => {
    const error = errorData('MATCH_NOT_FOUND', 'src/a.ts: hunk at patch line 4 was not found.', {
      path: 'src/a.ts',
      patchLine: 4,
      candidates: [
        { fileLine: 12, score: 0.8333, preview: 'const a = 1' },
        { fileLine: 40, score: 0.5, preview: 'line one\nline two' },
      ],
    })
    expect(renderErrorHuman(error)).toBe(
      [
        'error MATCH_NOT_FOUND: src/a.ts: hunk at patch line 4 was not found.',
        `hint: ${error.hint}`,
        '  line 12 (score 0.83): const a = 1',
        '  line 40 (score 0.50): line one\\nline two',
        '',
      ].join('\n'),
    )
  })
})

describe('renderJsonLine', () => {
  it('prints exactly one line that parses back to the value', () => {
    const details = { currentHash: 'sha256:c' }
    const value = failedResult(errorData('FILE_CHANGED', 'a.txt changed\nunderneath.', details))
    const out = renderJsonLine(value)
    expect(out.endsWith('\n')).toBe(true)
    expect(out.slice(0, -1)).not.toContain('\n')
    expect(JSON.parse(out)).toEqual({
      ok: false,
      error: {
        code: 'FILE_CHANGED',
        message: 'a.txt changed\nunderneath.',
        hint: value.error.hint,
        retryable: true,
        currentHash: 'sha256:c',
      },
    })
  })

  it('renders a parse-only result with its flag', () => {
    expect(JSON.parse(renderJsonLine(parseOnlyResult('codex', [])))).toEqual({
      ok: true,
      format: 'codex',
      parseOnly: true,
      files: [],
    })
  })
})

describe('diagnostics rendering', () => {
  const error = {
    path: 'src/a.ts',
    line: 3,
    column: 7,
    endLine: 3,
    endColumn: 8,
    severity: 'error' as const,
    code: '2322',
    source: 'ts',
    message: "Type 'string' is not assignable to type 'number'.",
  }

  it('lists introduced and resolved errors under the file summary', () => {
    const text = renderApplyHuman({
      format: 'codex',
      dryRun: false,
      files: [],
      warnings: [],
      diagnostics: {
        introduced: [error],
        resolved: [{ ...error, line: 9, message: 'Old error.' }],
        remaining: [error],
        settled: true,
        waitedMs: 120,
        servers: [
          {
            adapter: 'typescript',
            root: '.',
            state: 'ready',
            settled: true,
            waitedMs: 120,
            signal: 'pull',
          },
        ],
      },
    })
    expect(text).toContain('diagnostics (typescript: settled in 120 ms via pull):\n')
    expect(text).toContain(
      "  + src/a.ts:3:7 error TS2322: Type 'string' is not assignable to type 'number'.\n",
    )
    expect(text).toContain('  - src/a.ts:9:7 error TS2322: Old error. (resolved)\n')
    expect(text).toContain('  1 already present before the change\n')
  })

  it('never presents an unsettled server as clean', () => {
    const text = renderDiagnosticsHuman({
      introduced: [],
      resolved: [],
      remaining: [],
      settled: false,
      waitedMs: 10_000,
      servers: [
        {
          adapter: 'pyright',
          root: '.',
          state: 'ready',
          code: 'LSP_TIMEOUT',
          settled: false,
          waitedMs: 10_000,
          signal: 'deadline',
          message: 'Pyright for . did not settle within 10000 ms.',
        },
      ],
    })
    expect(text).not.toContain('no errors')
    expect(text).toContain('pyright: NOT settled after 10000 ms')
    expect(text).toContain('pyright: LSP_TIMEOUT Pyright for . did not settle within 10000 ms.')
    expect(text).toContain('not a clean result')
  })
})
