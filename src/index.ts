// patchloom's public API. This list is the contract: anything not exported here is internal
// (the parser's plan, Result, the route option; DECISIONS.md D-108).
export { createEngine } from './engine/engine.js'
export type {
  ApplyOptions,
  ApprovalRequest,
  ApproveFn,
  CheckOptions,
  Engine,
  EngineDiagnosticsOptions,
  EngineOptions,
  JournalOptions,
  LanguageServerOptions,
  LimitOptions,
  WorkerOptions,
} from './engine/api.js'
export type {
  Durability,
  JournalConflict,
  RecoveryReport,
  TransactionFile,
  TransactionInfo,
  TransactionStatus,
  UndoResult,
} from './journal/records.js'
export type {
  DiagnosticSeverity,
  DiagnosticsOptions,
  DiagnosticsReport,
  FileDiagnostic,
  ServerReport,
  ServerState,
  SettleSignal,
} from './lsp/reports.js'
export { applyMany } from './batch/many.js'
export type { ApplyManyOptions } from './batch/many.js'
export type { BatchJob, BatchJobOptions, BatchResult } from './batch/jobs.js'
export { parsePatch } from './engine/parse-patch.js'
export type { ParsePatchOptions } from './engine/parse-patch.js'
export { detectFormat } from './parse/index.js'
export type { PatchFileSummary, PatchSummary } from './parse/summary.js'
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
export { WARNING_CODES } from './warnings.js'
export type { WarningCode } from './warnings.js'
export type {
  ApplyResult,
  FileMode,
  FileResult,
  FormatOption,
  PatchFormat,
  ResultOp,
  Warning,
} from './types.js'
export type { Logger, LogFields } from './log.js'
