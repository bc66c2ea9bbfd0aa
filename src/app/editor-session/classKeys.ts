// Which class the editor's class keys pick (issues 19 and 33), pure so it is unit-tested: 1-9 take
// the project's n-th class whatever the tool (the picker shows each class with its key), C /
// Shift+C step through the classes the tool (or the selection) may use, and a relabel leaves alone
// the shapes whose tool the class does not allow. A class lists its tools (contract classTools;
// none: every tool); masks are drawn with the mask tools (Auto-Annotate, brush, eraser).
// (Tab's walk of the list: ./listOrder.ts.)
import { classAllowsTool, type ClassTool, type ProjectClass } from '../../contract/projects';

/** The class tools as the editor names them (the class picker, the Add Class dialog, messages). */
export const TYPE_NAMES: Record<ClassTool, string> = { box: 'Box', polygon: 'Polygon', polyline: 'Polyline', keypoint: 'Keypoint', mask: 'Mask' };

/** The engine's shape types (a mask is 'segmentation', a keypoint skeleton 'skeleton'). */
export type ShapeKind = 'box' | 'polygon' | 'polyline' | 'keypoint' | 'segmentation' | 'skeleton';

/** The tool a class must allow for a shape of this type to carry it. */
export function classToolOfShape(type: ShapeKind): ClassTool {
  if (type === 'segmentation') return 'mask';
  if (type === 'skeleton') return 'keypoint';
  return type;
}

/** The classes that may be drawn with `tool` (null: every class), in the project's order. */
export function classesForTool(classes: readonly ProjectClass[], tool: ClassTool | null): ProjectClass[] {
  return tool ? classes.filter((c) => classAllowsTool(c, tool)) : [...classes];
}

/** The classes a shape of `type` may be given (a row's class menu). */
export function classesForShape(classes: readonly ProjectClass[], type: ShapeKind): ProjectClass[] {
  return classesForTool(classes, classToolOfShape(type));
}

/** The classes every one of `shapes` may be given (the picker with a selection). */
export function classesForShapes(classes: readonly ProjectClass[], shapes: readonly { type: ShapeKind }[]): ProjectClass[] {
  const tools = [...new Set(shapes.map((s) => classToolOfShape(s.type)))];
  return classes.filter((c) => tools.every((t) => classAllowsTool(c, t)));
}

/** The class number key `n` (1-9) picks: the project's n-th class, the same whatever the tool; null when there are fewer. */
export function numberKeyClass(classes: readonly ProjectClass[], n: number): ProjectClass | null {
  if (!Number.isInteger(n) || n < 1) return null;
  return classes[n - 1] ?? null;
}

/** The number key of a class (1-9, its place in the project), or null past the ninth. */
export function classKeyOf(classes: readonly ProjectClass[], name: string): number | null {
  const at = classes.findIndex((c) => c.name === name);
  return at >= 0 && at < 9 ? at + 1 : null;
}

/** The one class tool every shape needs, or null for an empty selection or one that needs several. */
export function sharedClassTool(shapes: readonly { type: ShapeKind }[]): ClassTool | null {
  if (shapes.length === 0) return null;
  const first = classToolOfShape(shapes[0]!.type);
  return shapes.every((s) => classToolOfShape(s.type) === first) ? first : null;
}

/** What relabelling `shapes` to `cls` changes: the shapes it may be given that do not have it yet, and how many it may not be given. */
export function relabelPlan(shapes: readonly { id: string; type: ShapeKind; class: string }[], cls: ProjectClass): { ids: string[]; misfits: number } {
  const ids: string[] = [];
  let misfits = 0;
  for (const s of shapes) {
    if (!classAllowsTool(cls, classToolOfShape(s.type))) misfits++;
    else if (s.class !== cls.name) ids.push(s.id);
  }
  return { ids, misfits };
}

/**
 * The class after `current` among `listed` (`step` -1: before it), wrapping around; the first (or
 * last) when `current` is not one of them; null when none is listed.
 */
export function cycledClass(listed: readonly ProjectClass[], current: string | null, step: 1 | -1): ProjectClass | null {
  if (listed.length === 0) return null;
  const at = listed.findIndex((c) => c.name === current);
  if (at < 0) return step > 0 ? listed[0]! : listed[listed.length - 1]!;
  return listed[(at + step + listed.length) % listed.length]!;
}

/**
 * Auto-Annotate's class: the one chosen in this project (`stored`, kept on the device) while it may
 * still draw masks; else the project's only class that may (nothing to ask); else none, and the bar asks.
 */
export function autoAnnotateClass(stored: unknown, classes: readonly ProjectClass[]): string | null {
  const masks = classesForTool(classes, 'mask');
  if (typeof stored === 'string' && masks.some((c) => c.name === stored)) return stored;
  return masks.length === 1 ? masks[0]!.name : null;
}
