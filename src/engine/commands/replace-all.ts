import type { EditorAnnotation, JsonValue } from '../model/types';
import { NO_ATTRIBUTES, defineCommand } from './types';

/**
 * Replaces the whole document (e.g. 'Copy Previous'); `annotations` are in paint order. Their
 * attributes are conformed to their classes as they are now (env.attributesFor).
 */
export const replaceAll = defineCommand<{ annotations: readonly EditorAnnotation[] }>({
  name: 'replace-all',
  label: () => 'Replace all annotations',
  run(tx, { annotations }, env) {
    const policy = env.attributesFor;
    tx.replaceAll(
      policy
        ? annotations.map((a) => {
            const current = a.attributes ?? NO_ATTRIBUTES;
            const attributes = policy(a.class, current);
            return attributes !== current ? { ...a, attributes: structuredClone(attributes) as JsonValue[] } : a;
          })
        : annotations,
    );
  },
});
