// Yielding to the event loop between slices of long work (loads of 100k shapes, large JSON).

const waiting: (() => void)[] = [];

/** Node's MessagePort keeps the process alive while referenced; browsers have no such methods. */
type Refable = { ref?(): void; unref?(): void };

function makeChannel(Channel: NonNullable<typeof MessageChannel>) {
  const channel = new Channel();
  const port = channel.port1 as unknown as Refable;
  channel.port1.onmessage = () => {
    const wake = waiting.splice(0, waiting.length);
    port.unref?.(); // referenced only while someone waits
    for (const resolve of wake) resolve();
  };
  return { post: () => channel.port2.postMessage(null), port };
}

let channel: ReturnType<typeof makeChannel> | null = null;

/**
 * The next task of the event loop. A MessageChannel message rather than setTimeout(0): nested
 * timeouts are clamped to 4 ms in browsers, which would leave a third of an 8 ms slice idle.
 * One channel serves every caller (a channel per call costs a new message pipe each time: in
 * Chromium that showed up as tens of ms per load in MessageChannel / close); each message wakes
 * every caller queued before it arrives.
 */
export function nextTask(): Promise<void> {
  if (typeof MessageChannel === 'undefined') return new Promise((resolve) => setTimeout(resolve, 0));
  const ch = (channel ??= makeChannel(MessageChannel));
  return new Promise((resolve) => {
    if (waiting.push(resolve) === 1) {
      ch.port.ref?.();
      ch.post();
    }
  });
}
