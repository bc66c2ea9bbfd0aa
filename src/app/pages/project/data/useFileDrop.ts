// Desktop files dropped on the Data tab upload to the folder on screen. A role that may not upload:
// the overlay says so for the whole drag and the drop effect is 'none' (a not-allowed cursor;
// browsers then end the drag with dragleave, not drop); a drop that arrives anyway is refused with
// the same note. Drags of tiles (no files) are left to the tiles.
import { useRef, useState, type DragEvent } from 'react';
import { toast } from '../../../stores/toast';

const hasFiles = (e: DragEvent) => e.dataTransfer.types.includes('Files');

export function useFileDrop({ uploadDenied, onUpload }: { uploadDenied: string | null; onUpload(files: File[]): void }) {
  const [fileOver, setFileOver] = useState(false);
  // dragenter / dragleave pairs of the children crossed on the way.
  const dragDepth = useRef(0);
  const dropHandlers = {
    onDragEnter: (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      dragDepth.current += 1;
      setFileOver(true);
    },
    onDragOver: (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = uploadDenied ? 'none' : 'copy';
    },
    onDragLeave: (e: DragEvent) => {
      if (!hasFiles(e)) return;
      dragDepth.current = Math.max(0, dragDepth.current - 1);
      if (!dragDepth.current) setFileOver(false);
    },
    onDrop: (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      dragDepth.current = 0;
      setFileOver(false);
      if (uploadDenied) {
        toast(uploadDenied, 'danger', 4000);
        return;
      }
      const files = Array.from(e.dataTransfer.files);
      if (files.length) onUpload(files);
    },
  };
  return { fileOver, dropHandlers };
}
