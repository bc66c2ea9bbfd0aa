// Pure helpers for the Classes tab (spec sections 3 and 5).
import { CLASS_PALETTE, CLASS_TOOLS, classTools, MAX_PROJECT_CLASSES, nextClassColor, type ClassTool, type ProjectClass, type SkeletonDefinition } from '../../../contract/projects';

/** Default colour by position in the palette. */
export function paletteColor(index: number): string {
  return CLASS_PALETTE[((index % CLASS_PALETTE.length) + CLASS_PALETTE.length) % CLASS_PALETTE.length];
}

/**
 * The colour of a new class: the palette colour furthest (CIEDE2000) from the colours the classes
 * use, and never `avoid` (a duplicate's original) while another is left. The one rule of
 * contract/projects.ts nextClassColor, which the server's importer uses too.
 */
export function newClassColor(classes: readonly ProjectClass[], avoid?: string): string {
  return nextClassColor(classes.map((c) => c.color), avoid);
}

/** 'name copy', then 'name copy 2', 'name copy 3', ... the first not taken (case-insensitive). */
export function duplicateName(name: string, classes: readonly ProjectClass[]): string {
  const taken = new Set(classes.map((c) => c.name.trim().toLowerCase()));
  const base = `${name} copy`;
  if (!taken.has(base.toLowerCase())) return base;
  for (let n = 2; ; n += 1) {
    const candidate = `${base} ${n}`;
    if (!taken.has(candidate.toLowerCase())) return candidate;
  }
}

// --- adding many classes at once, tools and skeletons (issue 33 §3-4)

/** The COCO person skeleton (17 named points; COCO's 1-based edges made 0-based), a starting point for a skeleton class. */
export const COCO_PERSON_SKELETON: SkeletonDefinition = {
  points: ['nose', 'left_eye', 'right_eye', 'left_ear', 'right_ear', 'left_shoulder', 'right_shoulder', 'left_elbow', 'right_elbow', 'left_wrist', 'right_wrist', 'left_hip', 'right_hip', 'left_knee', 'right_knee', 'left_ankle', 'right_ankle'],
  edges: [[15, 13], [13, 11], [16, 14], [14, 12], [11, 12], [5, 11], [6, 12], [5, 6], [5, 7], [6, 8], [7, 9], [8, 10], [1, 2], [0, 1], [0, 2], [1, 3], [2, 4], [3, 5], [4, 6]],
};

/** What the Classes tab says a class is drawn with: 'Any tool', 'Box, Polygon', 'Skeleton (17 points)'. */
export function toolsLabel(c: ProjectClass): string {
  if (c.kind === 'skeleton') return `Skeleton (${c.skeleton?.points.length ?? 0} points)`;
  const tools = classTools(c);
  if (tools.length === CLASS_TOOLS.length) return 'Any tool';
  return tools.map((t) => TOOL_LABELS[t]).join(', ');
}

export const TOOL_LABELS: Record<ClassTool, string> = { box: 'Box', polygon: 'Polygon', polyline: 'Polyline', keypoint: 'Keypoint', mask: 'Mask' };

/** `tools` as a class stores them: left out when every tool is allowed. */
export function toolsField(tools: readonly ClassTool[]): { tools?: ClassTool[] } {
  return tools.length === CLASS_TOOLS.length ? {} : { tools: CLASS_TOOLS.filter((t) => tools.includes(t)) };
}

/** A skeleton written as text: one point name a line, and edges one a line as two point names ("left_eye - nose") or two 1-based numbers ("2 1"). */
export function parseSkeleton(pointsText: string, edgesText: string): { skeleton: SkeletonDefinition } | { error: string } {
  const points = pointsText.split('\n').map((l) => l.trim()).filter(Boolean);
  if (points.length === 0) return { error: 'List the skeleton’s points, one name a line' };
  const index = new Map(points.map((p, i) => [p.toLowerCase(), i]));
  if (index.size !== points.length) return { error: 'Each point name may appear only once' };
  const edges: [number, number][] = [];
  for (const line of edgesText.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const parts = line.includes('-') ? line.split('-') : line.split(/[\s,]+/);
    const ends = parts.map((p) => p.trim()).filter(Boolean);
    if (ends.length !== 2) return { error: `Edge “${line}”: write two point names (a - b) or two point numbers` };
    const at = ends.map((e) => (/^\d+$/.test(e) ? Number(e) - 1 : (index.get(e.toLowerCase()) ?? -1)));
    if (at.some((i) => i < 0 || i >= points.length)) return { error: `Edge “${line}” names a point the skeleton does not have` };
    edges.push([at[0]!, at[1]!]);
  }
  return { skeleton: { points, edges } };
}

/** The skeleton back as the text parseSkeleton reads (edges by name). */
export function skeletonText(s: SkeletonDefinition): { points: string; edges: string } {
  return { points: s.points.join('\n'), edges: s.edges.map(([a, b]) => `${s.points[a]} - ${s.points[b]}`).join('\n') };
}

/** Names pasted one a line, trimmed, empty lines and repeats (ignoring case) dropped, with those the project already has set apart. */
export function pastedClassNames(text: string, classes: readonly ProjectClass[]): { fresh: string[]; existing: string[] } {
  const have = new Set(classes.map((c) => c.name.trim().toLowerCase()));
  const seen = new Set<string>();
  const fresh: string[] = [];
  const existing: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const name = line.trim();
    const key = name.toLowerCase();
    if (!name || seen.has(key)) continue;
    seen.add(key);
    (have.has(key) ? existing : fresh).push(name);
  }
  return { fresh, existing };
}

/** The largest COCO categories file the Classes tab reads (a full COCO annotations file is read elsewhere: the importer). */
export const MAX_CATEGORIES_FILE = 2 * 1024 * 1024;

export interface CocoCategory {
  name: string;
  skeleton?: SkeletonDefinition;
}

/**
 * The categories of a COCO file: `{categories: [{name, keypoints?, skeleton?}]}` or the bare list.
 * The bytes are checked before they are trusted: at most MAX_CATEGORIES_FILE, UTF-8 JSON (not an
 * image or a zip renamed), names as text. A category with `keypoints` becomes a skeleton (COCO's
 * edges are 1-based).
 */
export function cocoCategories(bytes: Uint8Array): { categories: CocoCategory[] } | { error: string } {
  if (bytes.length > MAX_CATEGORIES_FILE) return { error: `The file is ${(bytes.length / 1048576).toFixed(1)} MB; a categories file may be at most ${MAX_CATEGORIES_FILE / 1048576} MB (import a whole COCO dataset from the Data tab)` };
  const first = bytes.find((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09 && b !== 0xef && b !== 0xbb && b !== 0xbf);
  if (first !== 0x7b && first !== 0x5b) return { error: 'This is not a JSON file: a COCO categories file starts with { or [' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return { error: 'The file is not valid JSON' };
  }
  const list = Array.isArray(parsed) ? parsed : parsed && typeof parsed === 'object' ? (parsed as { categories?: unknown }).categories : undefined;
  if (!Array.isArray(list)) return { error: 'The file has no "categories" list' };
  if (list.length > MAX_PROJECT_CLASSES) return { error: `The file lists ${list.length} categories; a project has at most ${MAX_PROJECT_CLASSES} classes` };
  const categories: CocoCategory[] = [];
  for (const [i, c] of list.entries()) {
    const name = c && typeof c === 'object' && typeof (c as { name?: unknown }).name === 'string' ? (c as { name: string }).name.trim() : '';
    if (!name) return { error: `Category ${i + 1} has no name` };
    const { keypoints, skeleton } = c as { keypoints?: unknown; skeleton?: unknown };
    if (Array.isArray(keypoints) && keypoints.length > 0 && keypoints.every((k) => typeof k === 'string')) {
      const pairs = Array.isArray(skeleton) ? skeleton : [];
      const edges = pairs
        .filter((p): p is [number, number] => Array.isArray(p) && p.length === 2 && p.every((n) => Number.isInteger(n)))
        .map(([a, b]) => [a - 1, b - 1] as [number, number]);
      categories.push({ name, skeleton: { points: keypoints as string[], edges } });
    } else categories.push({ name });
  }
  return { categories };
}
