// Annotation attributes against their class's definitions (issue 19). A stored annotation's
// `attributes` is a list of {name, value} entries; a class that defines attributes
// (ProjectClass.attributes in ./projects.ts, CVAT's model) holds its annotations to them:
// every entry is {name, value}, names a defined attribute once, and its value fits the kind
// (attributeValueProblem). A defined attribute may be missing (it reads as its default).
// A class without definitions keeps free-form attributes, as every project had before: data
// imported from other tools (occluded, visible, confidence...) and older saves stay valid.
// The server runs this on every path that stores annotations; the editor uses the same helpers.
import { attributeValueProblem, defaultAttributeValue, type AttributeDefinition, type AttributeValue, type ProjectClass } from './projects';
import { printableText } from './text';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface AttributeProblem {
  /** The attribute named (or the entry's position when it has no name). */
  attribute: string;
  /** A sentence naming the attribute and the class: 'Attribute "colour" of class "car" must be one of its options ("red", "blue")'. */
  message: string;
}

const quote = (s: string) => `"${printableText(s.slice(0, 100))}"`;

/** True when the class defines attributes, so its annotations' attributes are checked. */
export function hasAttributeDefinitions(cls: Pick<ProjectClass, 'attributes'> | undefined): cls is Pick<ProjectClass, 'attributes'> & { attributes: AttributeDefinition[] } {
  return Boolean(cls?.attributes && cls.attributes.length > 0);
}

/**
 * The first problem of an annotation's `attributes` for its class, or null when they fit (or the
 * class defines no attributes).
 */
export function attributesProblem(attributes: unknown, cls: Pick<ProjectClass, 'name' | 'attributes'> | undefined, previous?: unknown): AttributeProblem | null {
  if (!cls || !hasAttributeDefinitions(cls) || attributes === undefined) return null;
  // Entries the annotation already held, unchanged (saved before a definition changed), are kept as they are.
  const kept = new Set(Array.isArray(previous) ? previous.map((e) => JSON.stringify(e)) : []);
  const of = `of class ${quote(cls.name)}`;
  if (!Array.isArray(attributes)) return { attribute: '', message: `The attributes ${of} must be a list of {name, value} entries` };
  const defs = new Map(cls.attributes.map((d) => [d.name, d]));
  const seen = new Set<string>();
  for (const [i, entry] of attributes.entries()) {
    if (!isRecord(entry) || typeof entry.name !== 'string' || !('value' in entry)) {
      return { attribute: isRecord(entry) && typeof entry.name === 'string' ? entry.name : `#${i + 1}`, message: `Attribute entry ${i + 1} ${of} must be {name, value}` };
    }
    for (const key of Object.keys(entry)) {
      if (key !== 'name' && key !== 'value') return { attribute: entry.name, message: `Attribute ${quote(entry.name)} ${of} has an unknown key ${quote(key)} (entries are {name, value})` };
    }
    if (kept.size > 0 && kept.has(JSON.stringify(entry))) {
      seen.add(entry.name);
      continue;
    }
    const def = defs.get(entry.name);
    if (!def) return { attribute: entry.name, message: `Attribute ${quote(entry.name)} is not defined for class ${quote(cls.name)}` };
    if (seen.has(entry.name)) return { attribute: entry.name, message: `Attribute ${quote(entry.name)} ${of} appears twice` };
    seen.add(entry.name);
    const problem = attributeValueProblem(def, entry.value);
    if (problem) return { attribute: entry.name, message: `Attribute ${quote(entry.name)} ${of} ${problem}` };
  }
  return null;
}

/** What a shape held before a save: its class and its attributes (findAttributeProblem's `previous`). */
export interface HeldAttributes {
  name: unknown;
  attributes: unknown;
}

/**
 * The first problem of a list of stored annotations' attributes, with the annotation's position.
 * With `previous`, a value saved before its definition changed stays valid while it is unchanged
 * and the shape keeps its class: editing a shape's outline never fails on an option removed since
 * (only new values are checked), but a relabel is checked against the new class in full.
 * `classes`: the project's classes by exact name (annotations of other classes are not checked
 * here; the class check is findAnnotationProblem's).
 */
export function findAttributeProblem(
  list: readonly unknown[],
  classes: ReadonlyMap<string, Pick<ProjectClass, 'name' | 'attributes'>>,
  /** By annotation id, the class and attributes it holds now (stored): its unchanged entries are not checked again while the class is the same. */
  previous?: ReadonlyMap<string, HeldAttributes>,
): (AttributeProblem & { index: number }) | null {
  let any = false;
  for (const c of classes.values()) if (hasAttributeDefinitions(c)) any = true;
  if (!any) return null;
  for (let i = 0; i < list.length; i++) {
    const a = list[i];
    if (!isRecord(a) || typeof a.name !== 'string') continue;
    const held = typeof a.id === 'string' ? previous?.get(a.id) : undefined;
    // Values held under another class were never checked against this one (a relabel): none is kept.
    const kept = held && held.name === a.name ? held.attributes : undefined;
    const problem = attributesProblem(a.attributes, classes.get(a.name), kept);
    if (problem) {
      const id = typeof a.id === 'string' ? ` (id ${quote(a.id)})` : '';
      return { index: i, attribute: problem.attribute, message: `Annotation ${i}${id}: ${problem.message}` };
    }
  }
  return null;
}

/**
 * The entries of `attributes` that fit the class, and the names of those left out (for importers:
 * a value from another tool that does not fit is dropped with a warning, the shape is kept).
 */
export function fittingAttributes(attributes: unknown, cls: Pick<ProjectClass, 'name' | 'attributes'>): { kept: unknown[] | undefined; dropped: string[] } {
  if (!hasAttributeDefinitions(cls) || attributes === undefined) return { kept: attributes as unknown[] | undefined, dropped: [] };
  if (!Array.isArray(attributes)) return { kept: [], dropped: ['attributes'] };
  const kept: unknown[] = [];
  const dropped: string[] = [];
  const defs = new Map(cls.attributes.map((d) => [d.name, d]));
  for (const [i, entry] of attributes.entries()) {
    // Other tools write '4' for a number, 1 for a checkbox, 2 for the option "2": such values are read as the kind says.
    const def = isRecord(entry) && typeof entry.name === 'string' ? defs.get(entry.name) : undefined;
    const candidate = def && isRecord(entry) && attributeValueProblem(def, entry.value) ? { name: entry.name, value: coerceAttributeValue(def, entry.value) } : entry;
    const problem = attributesProblem([...kept, candidate], cls);
    if (problem) dropped.push(isRecord(entry) && typeof entry.name === 'string' ? entry.name : `#${i + 1}`);
    else kept.push(candidate);
  }
  return { kept, dropped };
}

/** `value` read as `def`'s kind when it plainly means one ('true', 1 for a checkbox; '4' for a number; 2 for the option "2"), else unchanged. */
export function coerceAttributeValue(def: Pick<AttributeDefinition, 'kind' | 'options'>, value: unknown): unknown {
  switch (def.kind) {
    case 'checkbox':
      if (value === 'true' || value === 1 || value === '1') return true;
      if (value === 'false' || value === 0 || value === '0') return false;
      return value;
    case 'number':
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
      return value;
    case 'select':
    case 'text':
      return typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
  }
}

/** The value of attribute `name` in a {name, value} list, or undefined when absent. */
export function attributeValue(attributes: readonly unknown[] | undefined, name: string): AttributeValue | undefined {
  for (const e of attributes ?? []) if (isRecord(e) && e.name === name && 'value' in e) return e.value as AttributeValue;
  return undefined;
}

/**
 * The attributes an annotation of `cls` holds, given its `current` ones (the editor's
 * AttributesPolicy): for a class with definitions, one {name, value} entry per definition, in
 * definition order, keeping a current value that fits and the default otherwise (entries the
 * class does not define are dropped); for a class without, `current` as it is (the same array).
 */
export function conformAttributes<T>(cls: Pick<ProjectClass, 'name' | 'attributes'> | undefined, current: readonly T[]): readonly (T | { name: string; value: AttributeValue })[] {
  if (!cls || !hasAttributeDefinitions(cls)) return current;
  const out = cls.attributes.map((def) => {
    const v = attributeValue(current as readonly unknown[], def.name);
    return { name: def.name, value: v !== undefined && attributeValueProblem(def, v) === null ? v : defaultAttributeValue(def) };
  });
  // Unchanged: the same array, so the command records nothing.
  if (out.length === current.length && JSON.stringify(out) === JSON.stringify(current)) return current;
  return out;
}
