// Which class the editor's class keys pick (issue 19), pure so it is unit-tested: 1-9 take the
// n-th class the class picker lists (the tool's type, or the selection's), C / Shift+C step a shape
// through the classes of its type, and a relabel leaves shapes whose type the class does not fit
// alone. (Tab's walk of the list: ./listOrder.ts.)
import type { AnnotationType, ProjectClass } from '../../contract/projects';

/** The class types as the editor names them (the class picker, the Add Class dialog, messages). */
export const TYPE_NAMES: Record<AnnotationType, string> = { box: 'Box', polygon: 'Polygon', polyline: 'Polyline', keypoint: 'Keypoint' };

/** The shape types as classes know them: a mask is listed with the polygon classes, a skeleton with the keypoint ones. */
export type ShapeKind = AnnotationType | 'segmentation' | 'skeleton';

export function classTypeOfShape(type: ShapeKind): AnnotationType {
  return type === 'segmentation' ? 'polygon' : type === 'skeleton' ? 'keypoint' : type;
}

/** The classes the picker lists for `type` (null: every class), in the project's order. */
export function classesOfType(classes: readonly ProjectClass[], type: AnnotationType | null): ProjectClass[] {
  return type ? classes.filter((c) => c.type === type) : [...classes];
}

/** The class number key `n` (1-9) picks: the n-th class listed for `type`, or null when there are fewer. */
export function numberKeyClass(classes: readonly ProjectClass[], type: AnnotationType | null, n: number): ProjectClass | null {
  if (!Number.isInteger(n) || n < 1) return null;
  return classesOfType(classes, type)[n - 1] ?? null;
}

/** The one class type every shape shares, or null for an empty or mixed selection. */
export function sharedClassType(shapes: readonly { type: ShapeKind }[]): AnnotationType | null {
  if (shapes.length === 0) return null;
  const first = classTypeOfShape(shapes[0]!.type);
  return shapes.every((s) => classTypeOfShape(s.type) === first) ? first : null;
}

/** What relabelling `shapes` to `cls` changes: the shapes it fits that do not have it yet, and how many it does not fit. */
export function relabelPlan(shapes: readonly { id: string; type: ShapeKind; class: string }[], cls: ProjectClass): { ids: string[]; misfits: number } {
  const ids: string[] = [];
  let misfits = 0;
  for (const s of shapes) {
    if (classTypeOfShape(s.type) !== cls.type) misfits++;
    else if (s.class !== cls.name) ids.push(s.id);
  }
  return { ids, misfits };
}

/**
 * The class after `current` among the classes of `type` (`step` -1: before it), wrapping around;
 * the first (or last) when `current` is not one of them; null when the type has no class.
 */
export function cycledClass(classes: readonly ProjectClass[], type: AnnotationType, current: string | null, step: 1 | -1): ProjectClass | null {
  const listed = classesOfType(classes, type);
  if (listed.length === 0) return null;
  const at = listed.findIndex((c) => c.name === current);
  if (at < 0) return step > 0 ? listed[0]! : listed[listed.length - 1]!;
  return listed[(at + step + listed.length) % listed.length]!;
}

/**
 * Auto-Annotate's class (masks are listed as polygons): the one chosen in this project (`stored`,
 * kept on the device) while it is still a polygon class; else the project's only polygon class
 * (nothing to ask); else none, and the bar asks.
 */
export function autoAnnotateClass(stored: unknown, classes: readonly ProjectClass[]): string | null {
  const polygons = classes.filter((c) => c.type === 'polygon');
  if (typeof stored === 'string' && polygons.some((c) => c.name === stored)) return stored;
  return polygons.length === 1 ? polygons[0]!.name : null;
}
