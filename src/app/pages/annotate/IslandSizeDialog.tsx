// "Remove islands smaller than…" (issue 33, part 1): the mask menus offer a few sizes, and this
// dialog any size in pixels. A menu item asks for it (askIslandSize); the one dialog, mounted with
// the canvas's selection menu, runs the command on the shapes the menu was opened for, as one undo
// step, or says why the size is refused and keeps the dialog open.
import { Sparkles } from 'lucide-react';
import { useEffect, useState } from 'react';
import type { Editor } from '../../../engine';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { TextField } from '../../components/TextField';

/** The largest size accepted: a 20,000 x 20,000 image's area, so any island of any image can go. */
export const MAX_ISLAND_SIZE = 400_000_000;

interface Request {
  editor: Editor;
  ids: readonly string[];
}

let listener: ((r: Request) => void) | null = null;
let lastSize = '100';

/** Opens the dialog for the shapes `ids` (from a menu item). */
export function askIslandSize(editor: Editor, ids: readonly string[]): void {
  listener?.({ editor, ids: [...ids] });
}

/** The size typed, or the sentence that says why it is refused. */
export function parseIslandSize(text: string): { size: number } | { error: string } {
  const t = text.trim();
  if (!/^\d+$/.test(t)) return { error: 'Enter a whole number of pixels, for example 100.' };
  const size = Number(t);
  if (size < 1 || size > MAX_ISLAND_SIZE) return { error: `Enter a size from 1 to ${MAX_ISLAND_SIZE.toLocaleString('en-US')} pixels.` };
  return { size };
}

export function IslandSizeDialog({ run }: { run(editor: Editor, minArea: number, ids: readonly string[]): void }) {
  const [request, setRequest] = useState<Request | null>(null);
  const [text, setText] = useState(lastSize);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    listener = (r) => {
      setText(lastSize);
      setError(null);
      setRequest(r);
    };
    return () => {
      listener = null;
    };
  }, []);

  const submit = () => {
    if (!request) return;
    const parsed = parseIslandSize(text);
    if ('error' in parsed) {
      setError(parsed.error);
      return;
    }
    lastSize = String(parsed.size);
    setRequest(null);
    run(request.editor, parsed.size, request.ids);
  };

  return (
    <Dialog
      open={request !== null}
      onOpenChange={(open) => (!open ? setRequest(null) : undefined)}
      icon={<Sparkles />}
      title="Remove islands"
      description="Parts of the mask smaller than this many pixels are removed. Undo brings them back."
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
      footer={
        <>
          <Button variant="secondary" type="button" onClick={() => setRequest(null)}>
            Cancel
          </Button>
          <Button variant="primary" type="submit">
            Remove islands
          </Button>
        </>
      }
    >
      <TextField
        label="Smaller than (pixels)"
        type="number"
        inputMode="numeric"
        min={1}
        max={MAX_ISLAND_SIZE}
        value={text}
        error={error}
        onChange={(e) => {
          setText(e.target.value);
          setError(null);
        }}
      />
    </Dialog>
  );
}
