// Yielding to the event loop between slices of long work (loads of 100k shapes, large JSON).

/**
 * The next task of the event loop. A MessageChannel message rather than setTimeout(0): nested
 * timeouts are clamped to 4 ms in browsers, which would leave a third of an 8 ms slice idle.
 */
export function nextTask(): Promise<void> {
  if (typeof MessageChannel === 'undefined') return new Promise((resolve) => setTimeout(resolve, 0));
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}
