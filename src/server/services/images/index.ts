// The images of a project, one file per operation (README.md). Other services and the routes
// import from here.
export { adjustCounters, type CounterState } from './counters';
export { deleteProjectImages, type DeleteResult } from './delete';
export { folderPathOrThrow, requireFolder } from './folder-path';
export { imageJson, imageJsonWithFolder } from './json';
export { filenameLockKey, withKeyLock } from './key-lock';
export { batchImageMetadata, getImage, listImages } from './read';
export { refuseForeignImages, type ImageRow, type ProjectRow } from './rows';
export { batchSignedUrls, signedImageUrl } from './signed-urls';
export { batchMove, batchUpdate, setImageStatus } from './update';
