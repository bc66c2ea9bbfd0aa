// Pre-label jobs (issue 34 §2): what the routes and the workers import.
export { cancelPrelabelJob, createPrelabelJob, getPrelabelJob, type PrelabelOptions } from './jobs';
export { PRELABEL_JOB_KIND, startPrelabelWorkers } from './runner';
