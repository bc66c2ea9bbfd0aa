export { LiveHub } from './hub';
