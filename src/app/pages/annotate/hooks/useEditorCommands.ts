// The screen's commands on the document: copy and paste across images (../clipboard), Copy
// Previous (the previous image's annotations pasted in place), completing an Auto-Annotate mask as
// a segmentation annotation, and Remove All. Each is one undo step, saved like any other edit.
import { useCallback, useEffect, useState } from 'react';
import type { Image } from '../../../../contract/images';
import type { GetMaskResponse } from '../../../../contract/segmentation';
import { storedToEditor, type Editor, type EditorAnnotation, type ProposalAccepted } from '../../../../engine';
import { serverMessage } from '../../../api/client';
import { toast } from '../../../stores/toast';
import type { AutoAnnotateSession } from '../autoAnnotate';
import { copyShapes, takePaste } from '../clipboard';
import { loadAnnotations } from '../../../api/annotations/preload';
import type { EditorSaveLink } from '../../../sync/save';
import { MESSAGE_MS } from './useToolsAndClasses';

export interface CommandsOptions {
  editor: Editor;
  imageId: string;
  projectId: string;
  /** The image before this one in the sequence (Copy Previous), if any. */
  previous: Image | null;
  readOnly: boolean;
  /** An earlier version is asked for or shown: the document is not edited. */
  previewing: boolean;
  link: EditorSaveLink;
  /** Auto-Annotate's session: what an accepted mask becomes (mask or polygons). */
  auto: Pick<AutoAnnotateSession, 'getState'>;
  recordUsage(ids: Iterable<string>): void;
}

export function useEditorCommands({ editor, imageId, projectId, previous, readOnly, previewing, link, auto, recordUsage }: CommandsOptions) {
  const [copyingPrevious, setCopyingPrevious] = useState(false);

  // Copying works on an earlier version too: its shapes can be pasted into the current document.
  const copy = useCallback(
    (from: Editor = editor) => {
      const shapes = from.copy();
      if (shapes.length === 0) return;
      copyShapes(shapes, imageId);
      toast(`Copied ${shapes.length} annotation(s)`, 'neutral', MESSAGE_MS);
    },
    [editor, imageId],
  );

  const paste = useCallback(() => {
    if (readOnly) return;
    const clip = takePaste(imageId);
    if (clip) editor.paste(clip.shapes, clip.offset);
  }, [editor, imageId, readOnly]);

  const copyPrevious = async () => {
    if (!previous || copyingPrevious || readOnly || previewing) return;
    setCopyingPrevious(true);
    try {
      const { annotations } = await loadAnnotations(previous, projectId);
      if (link.image?.imageId !== imageId) return;
      if (annotations.length === 0) {
        toast('The previous image has no annotations', 'neutral', MESSAGE_MS);
        return;
      }
      editor.paste(annotations.map(storedToEditor), 0);
    } catch (err) {
      toast(serverMessage(err, 'Failed to copy the previous annotations. Please try again.'), 'danger', 5000);
    } finally {
      setCopyingPrevious(false);
    }
  };

  // An accepted Auto-Annotate mask (Enter, or Complete: the engine tool asks for a class when none
  // is active) becomes a segmentation annotation of that class (one undo step), saved through the
  // same pipeline as every other edit.
  useEffect(
    () =>
      editor.onProposalAccepted((e: ProposalAccepted) => {
        const mask = e.proposal.data as GetMaskResponse;
        const [x, y, width, height] = mask.bbox;
        const id = typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : `${Date.now().toString(16)}-${Math.random().toString(16).slice(2)}`;
        const extra = { score: mask.score, sam2_area: mask.area, point_count: e.pointCount, inference_time: mask.inference_time, tool_used: `auto-annotate:${mask.backend}` };
        try {
          if (auto.getState().output.kind === 'polygon') {
            // Snapped to polygons (the answer's, simplified at the chosen tolerance): one per part of the mask, one undo step.
            const parts: EditorAnnotation[] = mask.vellum_annotations
              .filter((a) => a.polygon.path.length >= 3)
              .map((a, i) => {
                const holes = a.polygon.holes.filter((h) => h.length >= 3);
                return { id: `${id}-${i}`, type: 'polygon' as const, class: e.class, points: a.polygon.path, ...(holes.length ? { holes } : {}), extra };
              });
            if (parts.length === 0) return;
            const ids = editor.execute('paste', { annotations: parts, offset: 0 });
            editor.select(ids);
            recordUsage(ids);
            return;
          }
          editor.execute('create', {
            annotation: {
              id,
              type: 'segmentation',
              class: e.class,
              x,
              y,
              width,
              height,
              rle: mask.mask,
              extra,
            },
          });
          editor.select([id]);
          recordUsage([id]);
        } catch (err) {
          console.error('Error saving the mask:', err);
          toast('The mask could not be added. Please try again.', 'danger', 5000);
        }
      }),
    [editor, recordUsage, auto],
  );
  const completeMask = useCallback(() => void editor.acceptProposal(), [editor]);

  const removeAll = () => {
    const ids = editor.getOrderedIds();
    if (ids.length === 0 || readOnly || previewing) return;
    editor.execute('delete', { ids: [...ids] });
    toast(`Removed ${ids.length} annotation(s). Undo with Ctrl+Z`, 'neutral', 4000);
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
