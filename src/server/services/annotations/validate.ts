// The checks of annotations before they are stored: the shape rules (contract/annotation-check.ts),
// skeletons against their class (contract/skeleton.ts: a skeleton sent without its box gets the
// box of its points first) and the class attributes (contract/annotations-attributes.ts).
import { errors } from '../../errors';
import { findAnnotationProblem } from '../../../contract/annotation-check';
import { findAttributeProblem, type HeldAttributes } from '../../../contract/annotations-attributes';
import type { ProjectClass } from '../../../contract/projects';
import { findSkeletonProblem, withDerivedBoxes, type SkeletonClassLike } from '../../../contract/skeleton';
import { storedTexts, type Conn } from './store';

/**
 * Throws 400 naming the first bad annotation (src/contract/annotation-check.ts has the rules), or
 * the first attribute that does not fit its class's definition (contract/annotations-attributes.ts):
 * `{code: 'invalid_annotation', index, attribute}`.
 */
export function validateAnnotations(raw: unknown[], classes: readonly ProjectClass[] | ReadonlySet<string>): void {
  const names = classes instanceof Set ? (classes as ReadonlySet<string>) : new Set((classes as readonly ProjectClass[]).map((c) => c.name));
  withDerivedBoxes(raw);
  const problem = findAnnotationProblem(raw, names);
  if (problem) throw errors.badRequest(problem.message, problem.code, { index: problem.index });
  if (classes instanceof Set) return;
  const byName = new Map((classes as readonly ProjectClass[]).map((c) => [c.name, c]));
  throwSkeletonProblem(raw, byName);
  const attr = findAttributeProblem(raw, byName);
  if (attr) throw errors.badRequest(attr.message, 'invalid_annotation', { index: attr.index, attribute: attr.attribute });
}

/**
 * validateAnnotations for a save of one image: an attribute value saved before its class's
 * definition changed (an option removed, a kind changed) stays valid while the save leaves it
 * and the shape's class unchanged, so a shape whose outline is edited still saves; new or changed
 * values, and every value of a shape given another class, are checked.
 */
export async function validateForImage(db: Conn, imageId: string, raw: unknown[], classes: readonly ProjectClass[]): Promise<void> {
  const byName = new Map(classes.map((c) => [c.name, c]));
  const names = new Set(byName.keys());
  withDerivedBoxes(raw);
  const problem = findAnnotationProblem(raw, names);
  if (problem) throw errors.badRequest(problem.message, problem.code, { index: problem.index });
  throwSkeletonProblem(raw, byName);
  if (!findAttributeProblem(raw, byName)) return;
  const ids = raw.map((a) => (a as { id: string }).id);
  const previous = new Map<string, HeldAttributes>();
  for (const [id, row] of await storedTexts(db, imageId, ids)) {
    const held = JSON.parse(row.text) as { name?: unknown; attributes?: unknown };
    previous.set(id, { name: held.name, attributes: held.attributes });
  }
  const attr = findAttributeProblem(raw, byName, previous);
  if (attr) throw errors.badRequest(attr.message, 'invalid_annotation', { index: attr.index, attribute: attr.attribute });
}

/** 400 `invalid_skeleton` naming the first annotation that does not fit its class as a skeleton. */
function throwSkeletonProblem(raw: unknown[], byName: ReadonlyMap<string, ProjectClass>): void {
  const problem = findSkeletonProblem(raw, byName as ReadonlyMap<string, SkeletonClassLike>);
  if (problem) throw errors.badRequest(problem.message, 'invalid_skeleton', { index: problem.index });
}
