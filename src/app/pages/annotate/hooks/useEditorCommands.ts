// The screen's commands on the document, as React calls them: the session does the work
// (src/app/editor-session/session.ts: copy and paste across images, Copy Previous, an accepted
// Auto-Annotate mask, Remove All); this adds what the screen knows (read-only, an earlier version
// shown) and Copy Previous's busy state.
import { useCallback, useState } from 'react';
import type { Image } from '../../../../contract/images';
import type { Editor } from '../../../../engine';
import { serverMessage } from '../../../api/client';
import { toast } from '../../../stores/toast';
import type { EditorSession } from '../../../editor-session/session';

export interface CommandsOptions {
  session: EditorSession;
  imageId: string;
  /** The image before this one in the sequence (Copy Previous), if any. */
  previous: Image | null;
  readOnly: boolean;
  /** An earlier version is asked for or shown: the document is not edited. */
  previewing: boolean;
}

export function useEditorCommands({ session, imageId, previous, readOnly, previewing }: CommandsOptions) {
  const [copyingPrevious, setCopyingPrevious] = useState(false);

  // Copying works on an earlier version too: its shapes can be pasted into the current document.
  const copy = useCallback((from?: Editor) => session.copy(imageId, from), [session, imageId]);

  const paste = useCallback(() => {
    if (!readOnly) session.paste(imageId);
  }, [session, imageId, readOnly]);

  const copyPrevious = async () => {
    if (!previous || copyingPrevious || readOnly || previewing) return;
    setCopyingPrevious(true);
    try {
      await session.copyPrevious(previous, imageId);
    } catch (err) {
      toast(serverMessage(err, 'Failed to copy the previous annotations. Please try again.'), 'danger', 5000);
    } finally {
      setCopyingPrevious(false);
    }
  };

  const completeMask = useCallback(() => void session.editor.acceptProposal(), [session]);

  const removeAll = () => {
    if (readOnly || previewing) return;
    session.removeAll();
  };

  return {
    copy,
    paste,
    /** The previous image has annotations to copy. */
    canCopyPrevious: Boolean(previous && previous.annotation_count > 0),
    copyingPrevious,
    copyPrevious,
    completeMask,
    removeAll,
  };
}
