// The skeleton classes' definitions by class name (issue 33), which the app gives with
// `editor.skeletons.set(...)`: the skeleton tool places their points in order, set-class keeps a
// skeleton on a class of its size, and the renderer draws their edges (`editor.skeletons.of`).
import type { SkeletonDefinition } from '../../model/types';

export class SkeletonRegistry {
  private defs: ReadonlyMap<string, SkeletonDefinition> = new Map();

  /** `changed` runs after set() (the editor tells its listeners: the renderer redraws edges). */
  constructor(private readonly changed: () => void) {}

  /** Replaces the definitions (the app passes its classes'). */
  set(defs: ReadonlyMap<string, SkeletonDefinition>): void {
    this.defs = defs;
    this.changed();
  }

  /** The skeleton of a class, or null when it is not a skeleton class. */
  readonly of = (className: string): SkeletonDefinition | null => this.defs.get(className) ?? null;

  has(className: string): boolean {
    return this.defs.has(className);
  }
}
