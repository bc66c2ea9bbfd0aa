// Where the API harness leaves the stop of the worker's shared server for vitest-file-end.ts, which
// calls it at the end of a file that has a module graph of its own (that file's server would
// otherwise keep its worker process alive, with a server in it, until the run's end). A module of
// its own so the setup file need not load the harness and the server with it.
let stop: (() => Promise<void>) | null = null;

export function setSharedServerStop(fn: (() => Promise<void>) | null): void {
  stop = fn;
}

export async function stopSharedServer(): Promise<void> {
  const fn = stop;
  stop = null;
  await fn?.();
}
