// Piscina task module: the pure parse and compute functions, unchanged, behind two named tasks.
// Jobs and replies are plain data (src/coordinator/jobs.ts); failures come back as values
// (workers/reply.ts) because an Error thrown here would reach the coordinator stripped of its
// fields and looking like a crashed thread.
import { computeFile } from '../src/apply/compute.js'
import type { ComputeJob, ParseJob, WorkerReply } from '../src/coordinator/jobs.js'
import { parsePatch } from '../src/parse/index.js'
import type { ComputedFile, EditPlan } from '../src/types.js'
import { replyTo } from './reply.js'

export function parse(job: ParseJob): WorkerReply<EditPlan> {
  return replyTo(job.protocol, () => parsePatch(job.text, job.format))
}

export function compute(job: ComputeJob): WorkerReply<ComputedFile> {
  return replyTo(job.protocol, () => computeFile(job))
}
