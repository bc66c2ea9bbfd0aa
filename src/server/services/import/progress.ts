// The import's progress, written in order: one write at a time, the newest state only.
//
// Images finish concurrently and each asks for a progress write. Issued at once, two writes could
// commit out of order, and a slower earlier one (done 5) land after a later one (done 6): the
// import's progress went back, and a run resumed from it did images again. Here a write asked for
// while another is in flight waits for it, and the state it writes is read when the write starts
// (`state()`), so what is written is always the newest and never older than what is there.

/** What one progress write sends: built when the write starts, from the run's state then. */
export type ProgressWrite = () => Promise<void>;

export interface ProgressWriter {
  /**
   * Asks for a write of the progress as it will be when the write starts. Resolves once a write
   * that started after this call has ended (its error rejects it).
   */
  save(write: ProgressWrite): Promise<void>;
}

export function progressWriter(): ProgressWriter {
  let newest: ProgressWrite | null = null;
  let pumping: Promise<void> | null = null;
  const pump = async () => {
    try {
      while (newest) {
        const write = newest;
        newest = null;
        await write();
      }
    } finally {
      pumping = null;
    }
  };
  return {
    save(write) {
      newest = write;
      pumping ??= pump();
      return pumping;
    },
  };
}
