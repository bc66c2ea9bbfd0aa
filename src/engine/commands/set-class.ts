import type { EditorAnnotation, JsonValue } from '../model/types';
import { NO_ATTRIBUTES, defineCommand, type CommandEnv } from './types';

// A class change also conforms the attributes to the new class (env.attributesFor): values that
// fit are kept, the new class's defaults fill in, so the shape saves under its new class. A
// skeleton only takes a skeleton class with as many points, and another shape never takes a
// skeleton class (env.skeletonOf): the server would refuse the save (400 invalid_skeleton).

const fits = (a: EditorAnnotation, cls: string, env: CommandEnv): boolean => {
  const def = env.skeletonOf?.(cls) ?? null;
  return a.type === 'skeleton' ? def !== null && def.points.length === a.keypoints.length : def === null;
};

export const setClass = defineCommand<{ ids: readonly string[]; class: string }>({
  name: 'set-class',
  label: ({ ids }) => (ids.length === 1 ? 'Set class' : `Set class of ${ids.length} annotation(s)`),
  run(tx, { ids, class: cls }, env) {
    for (const id of ids) {
      const a = tx.get(id);
      if (!a || a.class === cls || !fits(a, cls, env)) continue;
      const current = a.attributes ?? NO_ATTRIBUTES;
      const attributes = env.attributesFor?.(cls, current) ?? current;
      tx.set(attributes !== current ? { ...a, class: cls, attributes: structuredClone(attributes) as JsonValue[] } : { ...a, class: cls });
    }
  },
});
