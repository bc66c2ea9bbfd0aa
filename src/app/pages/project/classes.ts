// Pure helpers for the Classes tab (spec sections 3 and 5).
import { CLASS_PALETTE, type ProjectClass } from '../../../contract/projects';

/** Default colour by position in the palette. */
export function paletteColor(index: number): string {
  return CLASS_PALETTE[((index % CLASS_PALETTE.length) + CLASS_PALETTE.length) % CLASS_PALETTE.length];
}

/** A random palette colour, different from `avoid` when given. */
export function randomPaletteColor(avoid?: string, random: () => number = Math.random): string {
  const choices = CLASS_PALETTE.filter((c) => c.toLowerCase() !== avoid?.toLowerCase());
  return choices[Math.floor(random() * choices.length)] ?? CLASS_PALETTE[0];
}

/** A random palette colour no class uses yet (any palette colour once all are used). */
export function unusedPaletteColor(classes: readonly ProjectClass[], avoid?: string, random: () => number = Math.random): string {
  const used = new Set(classes.map((c) => c.color.toLowerCase()));
  if (avoid) used.add(avoid.toLowerCase());
  const free = CLASS_PALETTE.filter((c) => !used.has(c.toLowerCase()));
  return free.length ? free[Math.floor(random() * free.length)] : randomPaletteColor(avoid, random);
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
