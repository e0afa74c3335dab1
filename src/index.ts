// patchloom's public API. This list is the contract: anything not exported here is internal.
export { createEngine } from './coordinator/engine.js'
export type {
  ApplyOptions,
  ApprovalRequest,
  ApproveFn,
  Engine,
  EngineDiagnosticsOptions,
  EngineOptions,
  JournalOptions,
  LimitOptions,
  PoolOptions,
} from './coordinator/engine-types.js'
export type {
  Durability,
  JournalConflict,
  RecoveryReport,
  TransactionFile,
  TransactionInfo,
  TransactionStatus,
  UndoResult,
} from './journal/types.js'
export type {
  DiagnosticSeverity,
  DiagnosticsOptions,
  DiagnosticsReport,
  FileDiagnostic,
  ServerReport,
  ServerState,
  SettleSignal,
} from './lsp/types.js'
export { parsePatch, detectFormat } from './parse/index.js'
export { replay } from './replay/replay.js'
export type {
  FallbackReason,
  ReplayCommit,
  ReplayMisplaced,
  ReplayMismatch,
  ReplayOptions,
  ReplayReport,
  ReplayVia,
} from './replay/replay.js'
export type { HunkRefusal, Tree, TreeFile } from './replay/tree.js'
export { EditError, ERROR_CODES, isEditError } from './errors.js'
export type { Candidate, EditErrorData, ErrorCode } from './errors.js'
export type {
  AddOp,
  ApplyResult,
  BinaryHunk,
  BinaryPatch,
  CopyOp,
  DeleteOp,
  EditPlan,
  EditsOp,
  FailedResult,
  FileMode,
  FileOp,
  FileResult,
  FormatOption,
  HunkLine,
  LineHunk,
  LocateMode,
  PatchFormat,
  ResultOp,
  StringEdit,
  UpdateOp,
  Warning,
} from './types.js'
export type { Result } from './result.js'
export type { Logger, LogFields } from './log.js'
