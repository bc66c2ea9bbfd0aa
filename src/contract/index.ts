export * from './system';
export * from './validation';
export * from './account';
export * from './projects';
export * from './image-edit';
export * from './segmentation';
export * from './live';
export * from './models';
