// The built-in models: listed for every organization, their weights inside an npm package (nothing
// is downloaded at install or run time). docs/models.md says why this one was chosen.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { COCO_80_CLASSES } from './coco';
import type { DetectorSpec } from './detector-spec';

const require = createRequire(import.meta.url);

/** The folder of an installed package, found the way Node finds its entry (some packages do not export package.json). */
export function packageDir(name: string): string {
  let dir = path.dirname(require.resolve(name));
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

export interface BuiltinModel {
  id: string;
  name: string;
  kind: 'detect';
  classes: readonly string[];
  input_size: number;
  /** the package that ships the weights, and its licence */
  package: string;
  license: string;
  spec: () => DetectorSpec;
}

/** CenterNet (MobileNetV3-large 0.75 backbone, 512 x 512), from @vladmandic/human (MIT). */
export const BUILTIN_CENTERNET: BuiltinModel = {
  id: 'builtin-coco-centernet',
  name: 'COCO objects (CenterNet, built-in)',
  kind: 'detect',
  classes: COCO_80_CLASSES,
  input_size: 512,
  package: '@vladmandic/human',
  license: 'MIT',
  spec: () => ({ id: 'builtin-coco-centernet', modelJson: path.join(packageDir('@vladmandic/human'), 'models', 'centernet.json'), decoder: 'centernet', inputSize: 512 }),
};

export const BUILTIN_MODELS: readonly BuiltinModel[] = [BUILTIN_CENTERNET];

export function builtinModel(id: string): BuiltinModel | undefined {
  return BUILTIN_MODELS.find((m) => m.id === id);
}
