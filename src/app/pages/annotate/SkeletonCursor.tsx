// The skeleton tool's next point at the pointer (issue 33 §4): its name, its place in the class's
// order and whether it will be placed occluded (O), from the engine's view.drawing (kind
// 'skeleton', updated on every pointer move and key). One DOM pill over the canvas, moved in
// place; hidden when the pointer leaves. The points already placed are drawn by the renderer.
import { useRef, type RefObject } from 'react';
import { imageToScreen, type Editor } from '../../../engine';
import { useEditorView } from './useEditor';
import { useOverlayAtPointer } from './useOverlayAtPointer';
import styles from './SkeletonCursor.module.css';

export function SkeletonCursor({ editor, canvas }: { editor: Editor; canvas: RefObject<HTMLCanvasElement | null> }) {
  // The keypoint tool draws skeletons while its class is a skeleton class.
  const view = useEditorView(editor);
  const shown = view.tool === 'skeleton' || (view.tool === 'keypoint' && view.activeClass !== null && editor.skeletons.of(view.activeClass) !== null);
  const ref = useRef<HTMLDivElement>(null);

  useOverlayAtPointer(editor, canvas, shown, (over) => {
    const tag = ref.current, d = editor.getView().drawing;
    if (!tag) return;
    if (!over || d?.kind !== 'skeleton' || !d.cursor || d.next >= d.names.length) {
      tag.style.display = 'none';
      return;
    }
    const [x, y] = imageToScreen(editor.getCamera(), d.cursor[0], d.cursor[1]);
    Object.assign(tag.style, { display: 'block', left: `${x}px`, top: `${y}px` });
    tag.firstChild!.textContent = `${d.names[d.next]}${d.occluded ? ' (occluded)' : ''}`;
    tag.lastChild!.textContent = `${d.next + 1}/${d.names.length}`;
    if (d.occluded) tag.dataset.occluded = '';
    else delete tag.dataset.occluded;
  });

  if (!shown) return null;
  return (
    <div className={styles.layer} aria-hidden="true">
      <div ref={ref} className={styles.tag} data-testid="skeleton-next">
        <span />
        <span className={styles.count} />
      </div>
    </div>
  );
}
