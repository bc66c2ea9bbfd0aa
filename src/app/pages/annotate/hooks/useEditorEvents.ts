// What the engine tells the screen as the user works: a drawing tool used without a class (offer
// one), and short messages for a box too small, a hole that would split its polygon, and a paste.
// Usage records for created shapes are the session's (src/app/editor-session/session.ts).
import { useEffect } from 'react';
import type { AnnotationType } from '../../../../contract/projects';
import type { Editor } from '../../../../engine';
import { toast } from '../../../stores/toast';
import type { EditorToolId } from '../hotkeys';
import { MESSAGE_MS, TOOL_CLASS_TYPE } from './useToolsAndClasses';

export function useEditorEvents({ editor, askForClass }: { editor: Editor; askForClass(type: AnnotationType): void }): void {
  useEffect(
    () =>
      editor.onEvent((e) => {
        if (e.type === 'needs-class') {
          // A drawing tool was used without a class: offer to create one.
          askForClass(TOOL_CLASS_TYPE[e.tool === 'pan' ? 'auto' : (e.tool as EditorToolId)] ?? 'box');
        } else if (e.type === 'too-small') {
          toast('Boxes must be at least 10 × 10 pixels', 'neutral', MESSAGE_MS);
        } else if (e.type === 'invalid-hole') {
          toast('That hole would split the polygon; draw it inside the shape', 'danger', 4000);
        } else if (e.type === 'pasted' && e.count > 0) {
          // Paste and Copy Previous: one creation action (recorded by the session).
          toast(`Pasted ${e.count} annotation(s)`, 'neutral', MESSAGE_MS);
        }
      }),
    [editor, askForClass],
  );
}
