// The room the editor's fit keeps clear for the bars laid over the canvas (issues 33 §2 and 34):
// the Auto-Annotate bar at the bottom while its tool is on, the predictions bar at the top while
// the image has pending predictions. A view at fit zoom is fitted again when either comes or goes
// (Editor.setFitInsets); a view zoomed or panned by hand stays as it is.
import { useEffect } from 'react';
import { NO_INSETS, type Editor, type Insets } from '../../../engine';
import { AUTO_BAR_ROOM } from './AutoAnnotateBar';
import { PREDICTIONS_BAR_ROOM } from './PredictionsBar';

/** The insets for the bars `editor` shows now. */
export function canvasBarInsets(editor: Editor): Insets {
  const top = editor.predictions.counts().pending > 0 ? PREDICTIONS_BAR_ROOM : 0;
  const bottom = editor.getView().tool === 'auto' ? AUTO_BAR_ROOM : 0;
  return top === 0 && bottom === 0 ? NO_INSETS : { ...NO_INSETS, top, bottom };
}

export function useCanvasBarRoom(editor: Editor): void {
  useEffect(() => {
    let applied = '';
    const apply = () => {
      const insets = canvasBarInsets(editor);
      const key = `${insets.top},${insets.bottom}`;
      if (key === applied) return;
      applied = key;
      editor.setFitInsets(insets);
    };
    apply();
    const off = editor.subscribe((c) => {
      if (c.view || c.document) apply();
    });
    return () => {
      off();
      editor.setFitInsets(NO_INSETS);
    };
  }, [editor]);
}
