// Pure helpers for the Classes tab (spec sections 3 and 5).
import { CLASS_PALETTE, nextClassColor, type ProjectClass } from '../../../contract/projects';

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
