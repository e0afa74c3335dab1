// The one error type, its stable codes and their documentation (ERRORS.md is rendered from
// ERROR_CODES by test/unit/errors-doc.test.ts, so the table below is the single source).
// `retryable` comes from the code, never from the throw site: "resending the same request,
// unchanged, may succeed".

export const ERROR_CODES = {
  PARSE_UNKNOWN_FORMAT: {
    meaning:
      'The input is not recognisably a Codex patch, unified diff, SEARCH/REPLACE block or JSON edit list.',
    hint: 'Send one of the supported formats, or name it with --format.',
    retryable: false,
  },
  PARSE_BAD_HEADER: {
    meaning:
      'A file or hunk header is malformed (missing path, bad @@ line, unknown *** directive).',
    hint: 'Fix the header named by patchLine and resend the whole patch.',
    retryable: false,
  },
  PARSE_INCONSISTENT_HEADER: {
    meaning:
      'Two lines of one git diff header contradict each other, so it is unclear which file or change is meant: a ---/+++ name that differs from the file a new file mode, deleted file mode, rename or copy line fixed; two of new file, deleted file, rename and copy; a /dev/null side without the file mode line that makes it one; a mode line that changes the file type. git apply refuses these too.',
    hint: 'Decide which of the two lines named in the message is right and make the other agree (or regenerate the section with git diff), then resend the whole patch.',
    retryable: false,
  },
  PARSE_BAD_LINE: {
    meaning: 'A line inside a hunk does not start with a valid prefix for its format.',
    hint: 'Prefix every hunk line with " " (context), "-" (remove) or "+" (add).',
    retryable: false,
  },
  PARSE_EMPTY_HUNK: {
    meaning: 'A file operation or hunk has no lines where the format requires some.',
    hint: 'Give each Update File at least one chunk, and each chunk at least one line.',
    retryable: false,
  },
  PARSE_UNTERMINATED: {
    meaning:
      'The patch ends before a required terminator (*** End Patch, >>>>>>> REPLACE, a hunk body).',
    hint: 'Send the complete patch, including its closing marker.',
    retryable: false,
  },
  PARSE_TRUNCATED: {
    meaning:
      'The patch ends in the middle of a line inside a hunk, short of the lines the hunk header counts: the output that made it was cut off (a length limit), so its last line is not what was meant.',
    hint: 'Send the whole patch again; if it was cut by a length limit, split the change into smaller patches.',
    retryable: false,
  },
  PARSE_TRAILING_TEXT: {
    meaning: 'Text follows the closing *** End Patch marker.',
    hint: 'Remove everything after *** End Patch, or send it as a separate patch.',
    retryable: false,
  },
  PARSE_BAD_EDIT: {
    meaning:
      'A JSON edit list is not valid JSON or an edit has missing, unknown or conflicting fields.',
    hint: 'Each edit needs "path" and exactly one of old_string/new_string, mode insert, replace_range, delete_range or write.',
    retryable: false,
  },
  PARSE_BAD_BINARY: {
    meaning:
      'A GIT binary patch is malformed: bad base85, bad length byte, or data that does not inflate to the stated size.',
    hint: 'Regenerate the patch with `git diff --binary`.',
    retryable: false,
  },
  PARSE_BAD_ENCODING: {
    meaning:
      'The patch is not valid UTF-8 where it must be: a JSON edit list (JSON is UTF-8; no unpaired surrogate escapes), or patch text passed as a string that holds unpaired surrogates.',
    hint: 'Send JSON edits as UTF-8 (escape other bytes as text); pass a patch that is not UTF-8 as bytes (a file, stdin, or a Uint8Array) in another format.',
    retryable: false,
  },
  PATH_INVALID: {
    meaning:
      'A path is empty, contains a NUL byte, is not valid UTF-8, names the workspace root itself, or is too long (a component over 255 bytes, or the whole path over 4095 bytes).',
    hint: 'Use a relative path to a file inside the workspace, with names the filesystem can hold.',
    retryable: false,
  },
  PATH_OUTSIDE_ROOT: {
    meaning:
      'A path resolves outside the workspace root (.. segments, an absolute path, or a symlink leading out).',
    hint: 'Use paths relative to the workspace root that stay inside it.',
    retryable: false,
  },
  PATH_DENIED: {
    meaning:
      'A path matches a deny glob (by default .git/ anywhere and the .patchloom/ journal at the root).',
    hint: 'Do not edit repository or journal metadata; change the deny globs only if you mean to.',
    retryable: false,
  },
  PATH_DUPLICATE: {
    meaning:
      'Two operations in one change resolve to the same path (move destinations included; on a case-insensitive filesystem, paths that differ only in case).',
    hint: 'Merge the operations on that path into one.',
    retryable: false,
  },
  PATH_BEYOND_SYMLINK: {
    meaning:
      'An add, delete or move names a path through a symlinked directory (git: "beyond a symbolic link"); updating an existing file there is allowed.',
    hint: 'Name the file by its real path, inside the directory the symlink points to.',
    retryable: false,
  },
  PATH_MOVE_TO_SELF: {
    meaning: 'A move or rename names its own source as the destination.',
    hint: 'Drop the *** Move to line, or give a different destination.',
    retryable: false,
  },
  FILE_NOT_FOUND: {
    meaning: 'A file the change updates, deletes, moves or copies from does not exist.',
    hint: 'Check the path; to create a file use Add File (or --- /dev/null in a diff).',
    retryable: false,
  },
  FILE_EXISTS: {
    meaning:
      'A unified diff creates or copies onto a file that already exists, or an OpenAI apply_patch create_file names one (patchloom/openai).',
    hint: 'Send the change as a modification of the existing file, or delete it first.',
    retryable: false,
  },
  FILE_IS_DIRECTORY: {
    meaning: 'The path names a directory.',
    hint: 'Name a regular file.',
    retryable: false,
  },
  FILE_WRONG_TYPE: {
    meaning:
      'The path is a symlink where the patch states a regular file, or a regular file where it states a symlink (mode 120000), as git apply refuses with "wrong type"; or a move or copy of a symlink also changes its content.',
    hint: 'Regenerate the patch from the current tree; move or copy a symlink without changes, and edit the file it points to by its own path.',
    retryable: false,
  },
  FILE_SUBMODULE: {
    meaning:
      'A unified diff creates, changes or deletes a submodule (mode 160000); patchloom changes files and symlinks, not submodules (git apply would make an empty directory for a new one).',
    hint: 'Leave submodules out of the patch (git diff --ignore-submodules) and update them with git submodule.',
    retryable: false,
  },
  FILE_NOT_REGULAR: {
    meaning:
      'The path names a FIFO, socket or device node; it is never opened, for reading or writing.',
    hint: 'Name a regular file; special files cannot be patched.',
    retryable: false,
  },
  FILE_NOT_TEXT: {
    meaning:
      'The file is not UTF-8 text (NUL bytes or invalid UTF-8) and the change needs more than a byte-exact match.',
    hint: 'Give context lines that match the file byte for byte, or use a binary patch.',
    retryable: false,
  },
  FILE_CHANGED: {
    meaning:
      'The file changed between verification and commit (another writer got there first); nothing was written.',
    hint: 'Resend the request unchanged: it is verified again against the file as it is now.',
    retryable: true,
  },
  // Not FILE_CHANGED: a stale expected_hash fails the same way on every resend.
  FILE_HASH_MISMATCH: {
    meaning:
      "A JSON edit's expected_hash does not match the file as it is now (or the file does not exist): it changed since the caller read it, so resending the same edit cannot succeed.",
    hint: 'Re-read the file (its current hash is in currentHash), then regenerate the edit against it.',
    retryable: false,
  },
  // Read-before-write: what counts is content hashes, never timestamps.
  FILE_STALE_READ: {
    meaning:
      'The agent is editing or overwriting a file it has never read (read-before-write is on): nothing was written.',
    hint: 'Read the file first (read_file), or send its current hash (in currentHash) as expected_hash.',
    retryable: false,
  },
  MATCH_NOT_FOUND: {
    meaning:
      'A hunk, SEARCH block or old_string was not found in the file, even after whitespace and punctuation folding.',
    hint: 'Copy the context exactly from the file; the nearest candidates are listed with their line numbers.',
    retryable: false,
  },
  MATCH_AMBIGUOUS: {
    meaning:
      'A hunk, SEARCH block or old_string matches in more than one place in the region it may use.',
    hint: 'Add surrounding lines (or an @@ hint) until it is unique, or set replace_all / expected_matches.',
    retryable: false,
  },
  MATCH_NOT_ANCHORED: {
    meaning:
      'A unified-diff hunk that must sit at one end of the file is not there, as git apply reads it: one without leading context that starts at line 1 belongs at the start, one without trailing context at the end, and one with no context that only adds lines belongs in an empty file.',
    hint: 'Regenerate the diff against the file as it is now, with context lines on both sides of each change (git diff writes three).',
    retryable: false,
  },
  MATCH_OVERLAP: {
    meaning: 'Two hunks for one file claim overlapping lines.',
    hint: 'Merge the overlapping hunks into one.',
    retryable: false,
  },
  MATCH_COUNT_MISMATCH: {
    meaning: 'An edit with expected_matches found a different number of matches.',
    hint: 'Check how many occurrences you mean; the message says how many were found and where.',
    retryable: false,
  },
  MATCH_OUT_OF_RANGE: {
    meaning: 'A line range (start_line/end_line) lies outside the file.',
    hint: 'Use 1-based inclusive line numbers within the file; the message gives its line count.',
    retryable: false,
  },
  MATCH_INDENT_AMBIGUOUS: {
    meaning:
      "A hunk matched only after ignoring indentation, and its old lines sit at indentation offsets from the file's that disagree (the patch flattened or scrambled the nesting), so an added line's depth cannot be told: it replaces no line and has no neighbour's indentation.",
    hint: "Resend the hunk with the file's own indentation on its context and added lines.",
    retryable: false,
  },
  MATCH_PAIRING_AMBIGUOUS: {
    meaning:
      'A SEARCH/REPLACE block matched only leniently (whitespace or punctuation ignored), and a line repeated on both of its sides lets its SEARCH and REPLACE lines pair two ways: the file line kept for that line differs between the two, so what the block means is not certain.',
    hint: 'Copy the SEARCH lines exactly from the file (then both pairings write the same bytes), or send a unified diff or a Codex patch, which mark their context lines.',
    retryable: false,
  },
  MATCH_NOT_EXACT: {
    meaning:
      "The patch's lines for a file hold bytes that are not UTF-8, so only a byte-exact match is allowed, and the change needs more (a lenient match).",
    hint: "Give context lines that match the file byte for byte, or send the patch in the file's own encoding.",
    retryable: false,
  },
  MATCH_REGEX_TIMEOUT: {
    meaning:
      'A regex edit took longer than its time bound to search the file (a pattern that backtracks without end); nothing was written.',
    hint: 'Simplify the pattern (avoid nested quantifiers such as (a+)+), or use old_string.',
    retryable: false,
  },
  // Edit-level refusals: the edit is well formed and found its place, but is not applied.
  EDIT_NO_OP: {
    meaning: "An edit's new text equals the text it replaces, so it would change nothing.",
    hint: 'Check that the edit says what you meant to change; drop it if nothing needs changing.',
    retryable: false,
  },
  PATCH_NO_OP: {
    meaning:
      "A patch's change to a file leaves every byte as it was: its hunks carry no '-' or '+' line, or remove and add the same lines.",
    hint: 'Check that the patch says what you meant to change: its changed lines were probably lost or written twice the same. Drop the file from the patch if nothing needs changing.',
    retryable: false,
  },
  EDIT_REWRITE_BLOCKED: {
    meaning:
      'A small old_string is replaced by a new_string that rewrites most of the file: the rewrite guard refused it.',
    hint: 'To replace the whole file, use write_file (mode "write") or set allow_rewrite: true.',
    retryable: false,
  },
  EDIT_NOTEBOOK_INVALID: {
    meaning:
      'A Jupyter notebook (.ipynb) edited as text would no longer be valid JSON; nothing was written.',
    hint: "Keep the notebook's JSON structure intact: escape quotes and newlines inside cell sources.",
    retryable: false,
  },
  LIMIT_PATCH_TOO_LARGE: {
    meaning: 'The patch is larger than the maximum patch size (maxPatchBytes, default 256 MiB).',
    hint: 'Split the change into smaller patches, or raise the limit (--max-patch-bytes).',
    retryable: false,
  },
  LIMIT_FILE_TOO_LARGE: {
    meaning:
      'A file the change reads or would produce is larger than the maximum file size (maxFileBytes, default 64 MiB).',
    hint: 'Leave that file out of the change, or raise the limit (--max-file-bytes).',
    retryable: false,
  },
  LIMIT_TOO_MANY_FILES: {
    meaning: 'The change names more files than the maximum per change (maxFiles, default 100,000).',
    hint: 'Split the change into several patches, or raise the limit (--max-files).',
    retryable: false,
  },
  APPROVAL_DENIED: {
    meaning: 'The approve callback declined the change; nothing was written.',
    hint: "Revise the change to meet the reviewer's policy.",
    retryable: false,
  },
  JOURNAL_COMMIT_FAILED: {
    meaning:
      'A filesystem call failed during commit for a reason not covered by a more specific JOURNAL_* code (for example EIO); the change was rolled back and the workspace is as before.',
    hint: 'The message names the file and the errno; resend once the cause is fixed.',
    retryable: true,
  },
  JOURNAL_NO_SPACE: {
    meaning:
      'The disk (or quota) ran out while staging or committing; the change was rolled back and the workspace is as before.',
    hint: 'Free space on the workspace filesystem, then resend.',
    retryable: true,
  },
  JOURNAL_PERMISSION_DENIED: {
    meaning:
      'The process may not write a target, its directory or .patchloom/ (EACCES/EPERM); nothing was changed.',
    hint: 'Fix the permissions named in the message, or leave that file out of the change.',
    retryable: false,
  },
  JOURNAL_READ_ONLY: {
    meaning:
      'The workspace (or part of it) is on a read-only filesystem (EROFS); nothing was changed.',
    hint: 'Remount it read-write or apply the change elsewhere.',
    retryable: false,
  },
  JOURNAL_TOO_MANY_OPEN_FILES: {
    meaning:
      'The process ran out of file descriptors (EMFILE/ENFILE) during commit; the change was rolled back.',
    hint: 'Resend when fewer files are open, or raise the limit (ulimit -n).',
    retryable: true,
  },
  JOURNAL_CROSS_DEVICE: {
    meaning:
      'A target is on a different filesystem from the workspace journal (a mount point inside the workspace), so it cannot be replaced atomically; the change was rolled back.',
    hint: 'Apply changes under that mount point with a workspace root inside it.',
    retryable: false,
  },
  JOURNAL_ROLLBACK_FAILED: {
    meaning:
      'A commit failed and rolling it back failed too; the transaction stays in .patchloom/journal for recovery.',
    hint: 'Fix the cause in the message, then run `patchloom recover`; it finishes the rollback.',
    retryable: false,
  },
  JOURNAL_LOCKED: {
    meaning:
      'Another process held the workspace lock (.patchloom/lock) for longer than the lock timeout.',
    hint: 'Resend later; a lock whose process has died is broken automatically.',
    retryable: true,
  },
  JOURNAL_CORRUPT: {
    meaning:
      'The journal cannot be trusted: a transaction in .patchloom/journal has a missing or invalid manifest, or .patchloom itself is not a real directory (a symlink, say).',
    hint: 'Inspect the path named in the message; remove it once the files are as you want them.',
    retryable: false,
  },
  JOURNAL_UNTRUSTED: {
    meaning:
      "A transaction in .patchloom/journal was not written by this workspace's engine (no valid signature of this user for this workspace, another owner, not a real directory, or written before transactions were signed); it is never acted on.",
    hint: 'A cloned or copied repository can carry a .patchloom directory: if the change is not yours, delete the transaction directory named in the message. Nothing was written.',
    retryable: false,
  },
  JOURNAL_UNSAFE_PATH: {
    meaning:
      'A transaction names a path the sandbox refuses (inside .git or .patchloom, outside the root through a symlink, a deny glob, or through a directory that is now a symlink); it is not acted on.',
    hint: 'Put the named directory back as it was and run `patchloom recover`, or delete the transaction directory named in the message. Nothing was written.',
    retryable: false,
  },
  JOURNAL_KEY_UNAVAILABLE: {
    meaning:
      "The per-user key that signs this user's transactions cannot be read or created (it lives in $PATCHLOOM_STATE_DIR, $XDG_STATE_HOME/patchloom or ~/.local/state/patchloom); nothing was changed.",
    hint: 'Make that directory writable and private to you (the key must be mode 600), or set PATCHLOOM_STATE_DIR to one that is.',
    retryable: false,
  },
  UNDO_NOT_FOUND: {
    meaning: 'No such transaction in the journal, or no committed change left to undo.',
    hint: 'Run `patchloom log` for the transactions that can be undone.',
    retryable: false,
  },
  UNDO_UNAVAILABLE: {
    meaning:
      'The transaction cannot be undone: it was already undone, did not commit, or its backups are gone.',
    hint: 'Run `patchloom log`; only committed transactions marked undoable can be undone.',
    retryable: false,
  },
  UNDO_CONFLICT: {
    meaning:
      'A file the transaction touched has changed since (the message names every such file); undo would lose that change, so nothing was written.',
    hint: 'Undo the later changes first, or restore those files by hand.',
    retryable: false,
  },
  WORKER_CRASHED: {
    meaning: 'A verification worker thread died while handling the request; nothing was written.',
    hint: 'Resend the request.',
    retryable: true,
  },
  REQUEST_CANCELLED: {
    meaning:
      'The request was cancelled by its caller before it was committed; nothing was written.',
    hint: 'Resend the request if you still want it applied.',
    retryable: true,
  },
  REQUEST_TIMEOUT: {
    meaning: 'Verification did not finish within the configured time; nothing was written.',
    hint: 'Resend, or raise the timeout for very large changes.',
    retryable: true,
  },
  LSP_NOT_INSTALLED: {
    meaning:
      'No executable was found for a language server (the message names the commands looked for).',
    hint: 'Install the server or put it on PATH; diagnostics for its files are skipped until then.',
    retryable: false,
  },
  LSP_START_FAILED: {
    meaning:
      'A language server failed to start or to answer initialize; after repeated failures it is marked broken and retried later with backoff.',
    hint: 'Check the server message in the report; the edit itself was applied.',
    retryable: true,
  },
  LSP_CRASHED: {
    meaning:
      'A language server exited while diagnostics were pending; it is restarted on next use.',
    hint: 'Ask for diagnostics again; the edit itself was applied.',
    retryable: true,
  },
  LSP_TIMEOUT: {
    meaning:
      'A language server did not settle before the deadline; the diagnostics may be incomplete (never read this as clean).',
    hint: 'Ask for diagnostics again, or raise the deadline for large projects.',
    retryable: true,
  },
  REPLAY_GIT_NOT_INSTALLED: {
    meaning: 'History replay needs the git executable, and none was found on PATH.',
    hint: 'Install git (2.31 or later) or put it on PATH.',
    retryable: false,
  },
  REPLAY_GIT_FAILED: {
    meaning:
      'A git process that reads the history or its objects exited with an error, was killed, or printed output patchloom cannot read (the message quotes git).',
    hint: 'Run the same range with `git log` or `git fsck` to see what git reports.',
    retryable: false,
  },
  REPLAY_OBJECT_CORRUPT: {
    meaning:
      'A git object the replay needs is missing, is not a blob, or its bytes do not hash to its id (the message names the path and id).',
    hint: 'Run `git fsck` on the repository; the named object is damaged or missing.',
    retryable: false,
  },
  // The MCP/HTTP server (src/server/).
  SERVER_BUSY: {
    meaning:
      "The server's queue for this workspace (or in total) is full; the request was not started.",
    hint: 'Retry after a short, growing delay.',
    retryable: true,
  },
  SERVER_CLOSING: {
    meaning: 'The server is shutting down and takes no new requests; nothing was written.',
    hint: 'Retry once the server is back.',
    retryable: true,
  },
  SERVER_WORKSPACE_UNKNOWN: {
    meaning:
      'The request names a workspace this server does not serve (or the token is not allowed to use).',
    hint: 'Name one of the workspaces the server was started with (see its workspaces list).',
    retryable: false,
  },
  // The distributed replay on BullMQ (src/queue/).
  QUEUE_JOB_INVALID: {
    meaning:
      'A job on the replay queue does not carry a valid range job (a malformed or foreign payload); the worker refuses it and goes on.',
    hint: 'Enqueue replays with `patchloom replay --queue`; remove foreign jobs with `patchloom queue clean`.',
    retryable: false,
  },
  QUEUE_UNREACHABLE: {
    meaning:
      'The Redis server named by --queue did not answer (not running, wrong address, refused the password, or the network is down); nothing was enqueued.',
    hint: 'Check the URL (redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]) and that redis-server is running and reachable from this machine.',
    retryable: true,
  },
  QUEUE_CLONE_FAILED: {
    meaning:
      'git could not clone or fetch a repository a queued replay names by URL (network, authentication, or no such repository); git never prompts for credentials here.',
    hint: 'Check that this machine can `git clone` the URL non-interactively (credential helper, ssh agent); the range is retried with backoff.',
    retryable: true,
  },
  QUEUE_COMMIT_MISSING: {
    meaning:
      'A repository named by URL lacks a commit of the range even after a fetch: its history was rewritten, or another repository now answers at the URL, after the run was planned.',
    hint: 'Enqueue the replay again, so that it is planned from the current history.',
    retryable: false,
  },
  QUEUE_RUN_CONFLICT: {
    meaning:
      'The run named by --run already has jobs on the queue for other repositories, ranges or formats than this command plans (attaching would merge reports of different work), or was cancelled.',
    hint: 'Give the same repositories, --range, --split and --via as the run was started with, or another --run (a cancelled run id is not reused).',
    retryable: false,
  },
  QUEUE_RUN_OPEN: {
    meaning:
      '`queue clean --run` was asked to remove a run that still has waiting, delayed or active jobs.',
    hint: 'Wait for the run to finish, or add --cancel to stop it (its waiting jobs are removed; active ones finish).',
    retryable: false,
  },
  CONFIG_INVALID: {
    meaning: 'An engine or request option is invalid.',
    hint: 'Fix the option named in the message.',
    retryable: false,
  },
  BATCH_JOB_INVALID: {
    meaning:
      'A job of a batch (a line of `patchloom batch` input, or a job given to applyMany) is not one: not a JSON object, or its id, root, patch, format or options missing, of the wrong type or unknown. That job is not run; the others are.',
    hint: 'Give each job as one JSON object on a line of its own: {"id": "...", "root": "DIR", "patch": "...", "format"?: "auto", "options"?: {"dryRun"?: true}}.',
    retryable: false,
  },
  USAGE_INVALID: {
    meaning: 'The command line is invalid (unknown command or flag, missing argument).',
    hint: 'Run `patchloom --help`.',
    retryable: false,
  },
  INTERNAL: {
    meaning: 'An unexpected internal error (a bug in patchloom).',
    hint: 'Report a bug with the request that caused it.',
    retryable: false,
  },
} as const satisfies Record<string, { meaning: string; hint: string; retryable: boolean }>

export type ErrorCode = keyof typeof ERROR_CODES

/** A near miss offered with MATCH_* errors. */
export interface Candidate {
  /** 1-based line in the file where the candidate region starts. */
  readonly fileLine: number
  /** Similarity in [0, 1]; 1 means identical after folding. */
  readonly score: number
  /** The first line(s) of the candidate region, shortened. */
  readonly preview: string
}

/** The plain-data form of an EditError: what crosses threads and what agents receive. */
export interface EditErrorData {
  readonly code: ErrorCode
  readonly message: string
  readonly hint: string
  readonly retryable: boolean
  readonly path?: string
  readonly patchLine?: number
  readonly candidates?: readonly Candidate[]
  /** Current sha256 of the file, for FILE_CHANGED and FILE_HASH_MISMATCH (absent if it does not exist). */
  readonly currentHash?: string
}

/** The optional fields of an error, as a throw site supplies them (hint overrides the table's). */
export type ErrorDetails = Partial<
  Pick<EditErrorData, 'hint' | 'path' | 'patchLine' | 'candidates' | 'currentHash'>
>

/** Builds EditErrorData for `code`, filling hint and retryable from the table. */
export function errorData(
  code: ErrorCode,
  message: string,
  details: ErrorDetails = {},
): EditErrorData {
  const entry = ERROR_CODES[code]
  return {
    code,
    message,
    hint: details.hint ?? entry.hint,
    retryable: entry.retryable,
    ...(details.path === undefined ? {} : { path: details.path }),
    ...(details.patchLine === undefined ? {} : { patchLine: details.patchLine }),
    ...(details.candidates === undefined ? {} : { candidates: details.candidates }),
    ...(details.currentHash === undefined ? {} : { currentHash: details.currentHash }),
  }
}

/** The error every public entry point rejects with. */
export class EditError extends Error {
  readonly code: ErrorCode
  readonly hint: string
  readonly retryable: boolean
  readonly path?: string
  readonly patchLine?: number
  readonly candidates?: readonly Candidate[]
  readonly currentHash?: string

  constructor(code: ErrorCode, message: string, details: ErrorDetails & { cause?: unknown } = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause })
    this.name = 'EditError'
    const data = errorData(code, message, details)
    this.code = data.code
    this.hint = data.hint
    this.retryable = data.retryable
    if (data.path !== undefined) this.path = data.path
    if (data.patchLine !== undefined) this.patchLine = data.patchLine
    if (data.candidates !== undefined) this.candidates = data.candidates
    if (data.currentHash !== undefined) this.currentHash = data.currentHash
  }

  static fromData(data: EditErrorData, cause?: unknown): EditError {
    return new EditError(data.code, data.message, {
      ...data,
      ...(cause === undefined ? {} : { cause }),
    })
  }

  toData(): EditErrorData {
    return errorData(this.code, this.message, this)
  }
}

export function isEditError(value: unknown): value is EditError {
  return value instanceof EditError
}
