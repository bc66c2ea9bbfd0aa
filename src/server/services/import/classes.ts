// The classes an import adds, under the project's own class rules (issue 30): the names the
// Classes tab and the HTTP API accept (trimmed, at most 100 characters, storable, unique ignoring
// case), at most MAX_PROJECT_CLASSES of them, valid colours and attribute definitions. A dataset's
// class is matched by the name it is stored under, so a 120-character COCO category becomes one
// 100-character class and its shapes find it (they used to make two identical classes, skip every
// shape as "unknown class", and leave a class list that no later edit could save).
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { projects } from '../../db/schema';
import { ApiError } from '../../errors';
import { nextClassColor, ProjectClasses, type AnnotationType, type AttributeDefinition, type ClassTool, type ProjectClass, type SkeletonDefinition } from '../../../contract/projects';
import { listSome } from '../../formats/read-common';
import { CLASS_NAME_MAX, classKey, storedClassName } from './class-names';

export { classKey };
import { updateProject } from '../projects';
import { ImportInputError, type ImportReporter } from '../../formats/reader';

/** ProjectClasses' limit on a project's classes, as the HTTP API enforces it. */
export const MAX_PROJECT_CLASSES = 1000;

export interface WantedClass {
  name: string;
  type?: AnnotationType;
  color?: string;
  attributes?: AttributeDefinition[];
  /** A keypoint class's point names in order (COCO), kept on the class for the export. */
  keypoints?: string[];
  /** The tools that may draw it (Vellum). */
  tools?: ClassTool[];
  /** A skeleton class's points and edges (COCO keypoint categories, YOLO pose, Vellum). */
  skeleton?: SkeletonDefinition;
}

/** Fails the import before anything is added when the project cannot take the classes it lacks. */
export function checkClassCount(current: readonly ProjectClass[], wanted: Iterable<string>): void {
  const have = new Set(current.map((c) => classKey(c.name)));
  const missing = new Set<string>();
  for (const name of wanted) {
    const key = classKey(name);
    if (key && !have.has(key)) missing.add(key);
  }
  if (current.length + missing.size > MAX_PROJECT_CLASSES) {
    throw new ImportInputError(`The dataset has ${missing.size} classes the project lacks; with its ${current.length} a project would have more than the ${MAX_PROJECT_CLASSES} classes it may have`);
  }
}

export interface ClassTarget {
  ctx: AppContext;
  userId: string;
  projectId: string;
  /** classKey -> the project's class (updated with the classes added). */
  classes: Map<string, ProjectClass>;
  report: ImportReporter;
  /** Names of the classes added (the report's classes_created). */
  created: string[];
  /**
   * Saves the import's report. Called with the names of the classes about to be added already in
   * `created`, before they are added: a run that dies right after adding them leaves them in the
   * saved report, where the run that resumes it, finding the classes there, would not add them.
   */
  persist: () => Promise<void>;
}

function classesToAdd(t: ClassTarget, wanted: readonly WantedClass[], current: readonly ProjectClass[]): ProjectClass[] {
  const added: ProjectClass[] = [];
  const keys = new Set<string>();
  for (const c of wanted) {
    const name = storedClassName(c.name);
    const key = name.toLowerCase();
    if (!key || t.classes.has(key) || keys.has(key)) continue;
    keys.add(key);
    if (name !== c.name.trim()) t.report.warn(`class "${c.name.slice(0, 200)}" is stored as "${name}" (class names have at most ${CLASS_NAME_MAX} characters)`);
    // A class without a colour takes the palette colour furthest from those in use (contract/projects.ts).
    const color = c.color && /^#[0-9a-fA-F]{6}$/.test(c.color) ? c.color : nextClassColor([...current, ...added].map((x) => x.color));
    const attributes = c.attributes?.length ? { attributes: c.attributes } : {};
    if (c.skeleton) added.push({ name, color, kind: 'skeleton', skeleton: c.skeleton, ...attributes });
    else added.push({ name, type: c.type ?? 'box', color, ...(c.tools ? { tools: c.tools } : {}), ...attributes, ...(c.keypoints?.length ? { keypoints: c.keypoints } : {}) });
  }
  return added;
}

/** Adds the classes the project lacks (matched by stored name, ignoring case), in one update checked with the API's class rules. */
export async function ensureClasses(t: ClassTarget, wanted: readonly WantedClass[]): Promise<void> {
  if (wanted.every((c) => !classKey(c.name) || t.classes.has(classKey(c.name)))) return;
  const [project] = await t.ctx.db.select({ classes: projects.classes }).from(projects).where(eq(projects.id, t.projectId)).limit(1);
  const current = project?.classes ?? [];
  for (const c of current) t.classes.set(classKey(c.name), c);
  const added = classesToAdd(t, wanted, current);
  if (added.length === 0) return;
  const checked = ProjectClasses.safeParse([...current, ...added]);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const at = typeof issue.path[0] === 'number' ? [...current, ...added][issue.path[0]] : undefined;
    const more = checked.error.issues.length > 1 ? ` (and ${checked.error.issues.length - 1} more)` : '';
    throw new ImportInputError(`The dataset's classes cannot be added to the project: ${at ? `class "${at.name}": ` : ''}${issue.message}${more}`);
  }
  // Said before they are added (see `persist`): a run that dies between the two leaves them named
  // and not added, and the run that resumes it adds them and does not name them twice.
  const named = added.map((c) => c.name).filter((name) => !t.created.includes(name));
  t.created.push(...named);
  try {
    await t.persist();
    await updateProject(t.ctx, t.userId, t.projectId, { classes: checked.data });
  } catch (err) {
    t.created.splice(t.created.length - named.length, named.length);
    if (err instanceof ApiError && err.status === 403) {
      throw new ImportInputError(`The dataset has classes the project lacks (${listSome(added.map((c) => `"${c.name}"`), 10)}) and your role cannot add classes`);
    }
    if (err instanceof ApiError && err.status === 400) throw new ImportInputError(`The dataset's classes cannot be added to the project: ${err.message}`);
    throw err;
  }
  for (const c of added) t.classes.set(classKey(c.name), c);
}
