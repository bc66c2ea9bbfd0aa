// The team workflow of issue 29 (README "Roles", docs/ARCHITECTURE.md): assignments and the queue
// (assign.ts), submit and review (review.ts), issues and comments (issues.ts), each image's activity
// (events.ts writes it, activity.ts reads it).
export { assignImages, nextInQueue, releaseAssignments } from './assign';
export { reviewImage, submitImage } from './review';
export { addComment, createIssue, listIssues, setIssueStatus } from './issues';
export { imageActivity } from './activity';
export { WORKFLOW_CHANNEL, peopleByIds, personOf } from './events';
