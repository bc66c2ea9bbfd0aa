// Time slicing for loops that stay on the event loop (work whose data is too small per item to be
// worth posting to a thread): the loop asks `due()` as it goes and, once it has held the loop for
// `budgetMs`, awaits `pause()`, which lets waiting requests and timers run (setImmediate) first.
//
//   const slice = timeSlice();
//   for (const a of annotations) {
//     if (slice.due()) await slice.pause();
//     ...
//   }

/** How long a sliced loop may hold the event loop before it lets others run. */
export const SLICE_MS = 15;

export interface TimeSlice {
  /** True once the loop has run SLICE_MS since it last paused (a clock read, cheap enough per item). */
  due(): boolean;
  /** Lets everything waiting on the event loop run, then starts a new slice. */
  pause(): Promise<void>;
}

export function timeSlice(budgetMs = SLICE_MS): TimeSlice {
  let started = performance.now();
  return {
    due: () => performance.now() - started >= budgetMs,
    pause: () =>
      new Promise<void>((resolve) =>
        setImmediate(() => {
          started = performance.now();
          resolve();
        }),
      ),
  };
}
