// What the engine tells the screen as the user works: usage records for shapes created on the image
// the editor holds (spec section 7), a drawing tool used without a class (offer one), and short
// messages for a box too small, a hole that would split its polygon, and a paste.
import { useCallback, useEffect } from 'react';
import type { AnnotationType } from '../../../../contract/projects';
import type { Editor } from '../../../../engine';
import { toast } from '../../../stores/toast';
import type { EditorToolId } from '../hotkeys';
import type { EditorSaveLink } from '../../../sync/save';
import { recordCreated } from '../usage';
import { MESSAGE_MS, TOOL_CLASS_TYPE } from './useToolsAndClasses';

/** Returns the usage recorder, for shapes the screen creates itself (a completed mask). */
export function useEditorEvents({ editor, link, orgId, askForClass }: { editor: Editor; link: EditorSaveLink; orgId: string; askForClass(type: AnnotationType): void }) {
  // Usage records for shapes created on the image the editor holds (spec section 7).
  const recordUsage = useCallback(
    (ids: Iterable<string>) => {
      const held = link.image;
      if (held) void recordCreated({ orgId, projectId: held.projectId, imageId: held.imageId }, [...ids].map((id) => editor.getAnnotation(id)));
    },
    [link, orgId, editor],
  );

  useEffect(
    () =>
      editor.onEvent((e) => {
        if (e.type === 'created') {
          recordUsage([e.id]);
        } else if (e.type === 'needs-class') {
          // A drawing tool was used without a class: offer to create one.
          askForClass(TOOL_CLASS_TYPE[e.tool === 'pan' ? 'auto' : (e.tool as EditorToolId)] ?? 'box');
        } else if (e.type === 'too-small') {
          toast('Boxes must be at least 10 × 10 pixels', 'neutral', MESSAGE_MS);
        } else if (e.type === 'invalid-hole') {
          toast('That hole would split the polygon; draw it inside the shape', 'danger', 4000);
        } else if (e.type === 'pasted' && e.count > 0) {
          // Paste and Copy Previous: one creation action.
          recordUsage(e.ids);
          toast(`Pasted ${e.count} annotation(s)`, 'neutral', MESSAGE_MS);
        }
      }),
    [editor, askForClass, recordUsage],
  );
  return recordUsage;
}
