// Annotations of an image, one file per operation (README.md). The routes, the live hub and the
// jobs (import, segmentation, image edit) import from here.
export { batchSave } from './batch-save';
export { loadDataChunks } from './load';
export { restoreVersion, saveChanges, saveData, saveMerge } from './save';
export { annotationStats, setAnnotationStatus } from './stats';
export { validateAnnotations } from './validate';
export { annotationsAtVersion, changesOf, historyOfImage } from './versions';
export { CHANGES_CHANNEL, headOf, readAnnotations, readAnnotationsOf } from './store';
export { layerOf } from './gt-layer';
export { startHistorySweep, sweepHistory, versionsAfter, type LoggedVersion } from './history';
