// The workflow's keys in the editor (../hotkeys resolveWorkflowHotkey): Ctrl/Cmd+Enter hands the
// image on (Submit for review, or Accept in review), Shift+R opens Reject..., I opens an issue at
// the pointer, Shift+I lets a region be dragged out for one. The engine and the editor's own table
// leave these keys alone; like them, nothing fires while typing, in a dialog or menu, or while an
// earlier version is shown. A key this member may not use says why instead of doing nothing.
import { useEffect, useRef } from 'react';
import type { Editor } from '../../../../engine';
import { toast } from '../../../stores/toast';
import { isSingleCharacterKey, isTypingTarget, resolveWorkflowHotkey, translateKey, type WorkflowHotkey } from '../hotkeys';
import { useShortcuts } from '../hooks/useShortcuts';

const MESSAGE_MS = 2500;

export interface WorkflowKeysOptions {
  editor: Editor;
  /** An earlier version is shown: the workflow keys wait. */
  previewing: boolean;
  canSubmit: boolean;
  canReview: boolean;
  /** Why this member may not open issues (null: they may). */
  issueDenied: string | null;
  submit(): void;
  accept(): void;
  openReject(): void;
  /** A new issue at a point of the image (image px). */
  issueAt(point: { x: number; y: number }): void;
  /** Lets a region be dragged out on the image for a new issue. */
  dragRegion(): void;
}

/** The pointer over the editor's canvas, in image pixels (null when it is elsewhere). */
function usePointerOnImage(editor: Editor) {
  const at = useRef<{ x: number; y: number } | null>(null);
  useEffect(() => {
    const onMove = (e: PointerEvent) => {
      const t = e.target as HTMLElement | null;
      if (!(t instanceof HTMLCanvasElement) || t.dataset.testid !== 'editor-canvas') {
        at.current = null;
        return;
      }
      const [x, y] = editor.screenToImage(e.offsetX, e.offsetY);
      at.current = { x, y };
    };
    window.addEventListener('pointermove', onMove, { passive: true });
    return () => window.removeEventListener('pointermove', onMove);
  }, [editor]);
  return at;
}

export function useWorkflowKeys(options: WorkflowKeysOptions): void {
  const opts = useRef(options);
  opts.current = options;
  const pointer = usePointerOnImage(options.editor);
  useEffect(() => {
    const act = (a: WorkflowHotkey) => {
      const o = opts.current;
      switch (a.type) {
        case 'hand-on':
          if (o.canSubmit) return o.submit();
          if (o.canReview) return o.accept();
          return toast('Nothing to hand on: the image is not yours to submit or review.', 'neutral', MESSAGE_MS);
        case 'reject':
          return o.canReview ? o.openReject() : toast('Only a reviewer can reject an image in review.', 'neutral', MESSAGE_MS);
        case 'issue-at-pointer':
          if (o.issueDenied) return toast(o.issueDenied, 'neutral', MESSAGE_MS);
          return pointer.current ? o.issueAt(pointer.current) : toast('Point at the image, then press I to open an issue there.', 'neutral', MESSAGE_MS);
        case 'issue-region':
          return o.issueDenied ? toast(o.issueDenied, 'neutral', MESSAGE_MS) : o.dragRegion();
      }
    };
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.repeat || isTypingTarget(e.target)) return;
      // With the person's single-key shortcuts off, I, Shift+R and Shift+I do nothing (issue 37).
      if (isSingleCharacterKey(e) && !useShortcuts.getState().shortcuts.enabled) return;
      // The person's own keys (their key for Reject, say) become the keys out of the box.
      const key = translateKey(e, useShortcuts.getState().shortcuts);
      const a = key && resolveWorkflowHotkey(key);
      if (!a) return;
      const t = e.target as HTMLElement | null;
      if (t && typeof t.closest === 'function' && t.closest('[role="dialog"], [role="menu"], [role="alertdialog"]')) return;
      if (document.querySelector('[role="dialog"][data-state="open"], [role="alertdialog"]')) return;
      e.preventDefault();
      if (opts.current.previewing) return toast('Viewing an earlier version: go back to the current one first.', 'neutral', MESSAGE_MS);
      if (a.type === 'hand-on' && opts.current.editor.getView().drawing) return toast('Finish or cancel the shape being drawn first.', 'neutral', MESSAGE_MS);
      act(a);
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [pointer]);
}
