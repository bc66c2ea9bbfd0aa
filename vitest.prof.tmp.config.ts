import base from './vitest.config';
import { mergeConfig } from 'vitest/config';
export default mergeConfig(base, { test: { execArgv: ['--cpu-prof', '--cpu-prof-dir=/tmp/s35/vprof', '--cpu-prof-interval=2000'] } });
