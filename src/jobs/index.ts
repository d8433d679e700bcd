export { backoffSeconds, DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.js';
export {
  JOB_DELETED,
  RetryLater,
  silentJobLogger,
  type Job,
  type JobClaim,
  type JobHandler,
  type JobHandlers,
  type JobLogger,
} from './job.js';
export {
  enqueueJob,
  expediteJob,
  jobBacklog,
  wakeJobs,
  type EnqueueJobInput,
  type JobKindBacklog,
} from './job.repo.js';
export { JobRunner, type JobRunnerOptions } from './runner.js';
