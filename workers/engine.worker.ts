// Piscina task module: the pure parse and compute functions, unchanged, behind two named tasks.
// Jobs and results are plain data (src/coordinator/jobs.ts); failures come back as Result values
// because an Error thrown here would reach the coordinator stripped of its fields.
import { computeFile } from '../src/apply/compute.js'
import {
  JOB_PROTOCOL,
  type ComputeJob,
  type ComputeOutcome,
  type ParseJob,
  type ParseOutcome,
} from '../src/coordinator/jobs.js'
import { parsePatch } from '../src/parse/index.js'

function checkProtocol(protocol: number): void {
  // A mismatch means dist/ is stale relative to the coordinator: a build problem, not bad input.
  if (protocol !== JOB_PROTOCOL) {
    throw new Error(
      `engine.worker: job protocol ${protocol} does not match worker protocol ${JOB_PROTOCOL}; rebuild`,
    )
  }
}

export function parse(job: ParseJob): ParseOutcome {
  checkProtocol(job.protocol)
  return parsePatch(job.text, job.format)
}

export function compute(job: ComputeJob): ComputeOutcome {
  checkProtocol(job.protocol)
  return computeFile(job)
}
