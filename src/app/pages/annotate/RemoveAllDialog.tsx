// Remove All asks first, then offers Undo (issue 33, part 5): the sidebar's Remove All opens a
// confirmation naming how many shapes go; confirming removes them as one undo step
// (EditorSession.removeAll) and shows a toast whose Undo puts them back, as long as nothing was
// done since (otherwise Ctrl+Z still does).
import { Trash2 } from 'lucide-react';
import { useCallback, useState, type ReactNode } from 'react';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { toastAction } from '../../stores/toast';
import type { EditorSession } from '../../editor-session/session';

export function useRemoveAll(session: EditorSession): { ask(): void; dialog: ReactNode } {
  const [count, setCount] = useState<number | null>(null);
  const ask = useCallback(() => {
    const n = session.editor.annotationCount;
    if (n > 0) setCount(n);
  }, [session]);
  const confirm = () => {
    setCount(null);
    const { editor } = session;
    const removed = session.removeAll(false);
    if (!removed) return;
    const version = editor.documentVersion;
    toastAction(`Removed ${removed} annotation(s)`, {
      label: 'Undo',
      run: () => {
        // Only while the document is as the removal left it: Undo never takes back something done since.
        if (editor.documentVersion === version) session.undo();
      },
    }, 'neutral');
  };
  const dialog = (
    <Dialog
      open={count !== null}
      onOpenChange={(open) => (!open ? setCount(null) : undefined)}
      tone="danger"
      icon={<Trash2 />}
      title="Remove all annotations?"
      description={`All ${count ?? 0} annotation(s) on this image are removed. Undo brings them back.`}
      footer={
        <>
          <Button variant="secondary" onClick={() => setCount(null)}>
            Cancel
          </Button>
          <Button variant="danger" onClick={confirm}>
            Remove All
          </Button>
        </>
      }
    />
  );
  return { ask, dialog };
}
