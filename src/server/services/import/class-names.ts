// The name a dataset's class is stored under, and the key classes are matched by (./classes.ts).
// Pure, so the dry run on an offload thread uses it too (./read-through.ts).
import { withoutUnstorable } from '../../../contract/text';

/** ProjectClass's name limit. */
export const CLASS_NAME_MAX = 100;

/** The name a dataset's class is stored under: trimmed, storable, cut to 100 characters ('' when nothing is left). */
export function storedClassName(name: string): string {
  return withoutUnstorable(withoutUnstorable(name.trim()).slice(0, CLASS_NAME_MAX)).trim();
}

/** The key classes are matched by: the stored name, ignoring case. */
export function classKey(name: string): string {
  return storedClassName(name).toLowerCase();
}
