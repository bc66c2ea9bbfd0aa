// The name a dataset's class is stored under, and the key classes are matched by (./classes.ts).
// Pure, so the dry run on an offload thread uses it too (./read-through.ts).
import { withoutUnstorable } from '../../../contract/text';

/** ProjectClass's name limit. */
export const CLASS_NAME_MAX = 100;

/** The name a dataset's class is stored under: trimmed, storable, cut to 100 characters ('' when nothing is left). */
export function storedClassName(name: string): string {
  return withoutUnstorable(withoutUnstorable(name.trim()).slice(0, CLASS_NAME_MAX)).trim();
}

/** Keys already worked out: an import asks for the key of every shape's class, mostly the same few names. */
const keys = new Map<string, string>();
const KEYS_KEPT = 10_000;

/** The key classes are matched by: the stored name, ignoring case. */
export function classKey(name: string): string {
  let key = keys.get(name);
  if (key === undefined) {
    key = storedClassName(name).toLowerCase();
    // The regular expressions of storedClassName, per shape, were the biggest part of converting a 10,000-box image.
    if (name.length > 4 * CLASS_NAME_MAX) return key; // a long name is not kept (it is rare, and memory)
    if (keys.size >= KEYS_KEPT) keys.clear();
    keys.set(name, key);
  }
  return key;
}
