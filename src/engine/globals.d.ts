// The only host globals the engine may use: those that browsers, workers and Node all provide.
// Read by src/engine/tsconfig.json alone, which type-checks the engine without the DOM library.
declare function structuredClone<T>(value: T): T;
declare function setTimeout(handler: (...args: never[]) => void, ms?: number): unknown;
declare function clearTimeout(handle: unknown): void;
/** The Auto-Annotate tool aborts a mask request in flight (tools/auto/types.ts: AbortSignalLike is what it reads of the signal). */
declare const AbortController: new () => { readonly signal: import('./tools/auto/types').AbortSignalLike; abort(): void };
declare const performance: { now(): number };
declare const crypto: { randomUUID?(): string; getRandomValues<T extends Uint8Array>(array: T): T };
/** Browsers, workers and Node 15+; tasks.ts's nextTask checks it is there. */
declare const MessageChannel:
  | undefined
  | (new () => { port1: { onmessage: ((event: unknown) => void) | null; close(): void }; port2: { postMessage(message: unknown): void } });
