// Consensus (issue 36 §3): the drafts of an overlapped image with their agreement, and the
// reviewer's merge. The queue's slots and the submit of a draft are ../workflow/overlap.ts; the
// draft layer that load-data and the saves read and write is ../annotations/gt-layer.ts.
export { agreementOf, draftsOfImage } from './drafts';
export { mergeDrafts } from './merge';
