// The project's skeleton classes told to the engine (issue 33 §4): their point names and edges,
// so the Keypoint tool draws an instance of a skeleton class point by point and the renderer draws
// its edges (editor.skeletons.set).
import { useEffect } from 'react';
import type { ProjectClass } from '../../../../contract/projects';
import type { Editor, SkeletonDefinition } from '../../../../engine';

/** The skeleton classes' definitions by class name. */
export function classSkeletons(classes: readonly ProjectClass[]): Map<string, SkeletonDefinition> {
  const out = new Map<string, SkeletonDefinition>();
  for (const c of classes) if (c.kind === 'skeleton' && c.skeleton && c.skeleton.points.length > 0) out.set(c.name, c.skeleton);
  return out;
}

export function useClassSkeletons(editor: Editor, classes: readonly ProjectClass[]): void {
  useEffect(() => {
    editor.skeletons.set(classSkeletons(classes));
  }, [editor, classes]);
}
