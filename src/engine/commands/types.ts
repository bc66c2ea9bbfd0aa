// A command is a pure function over the document draft (through DocTx) plus a history label.
import type { DocState, DocTx } from '../model/document';

export interface CommandEnv {
  /** Fresh annotation ids (paste). */
  newId(): string;
}

export interface Command<P, R = void> {
  readonly name: string;
  /** The history label, e.g. 'Delete 3 annotation(s)'. */
  label(payload: P, doc: DocState): string;
  run(tx: DocTx, payload: P, env: CommandEnv): R;
}

export const defineCommand = <P, R = void>(c: Command<P, R>): Command<P, R> => c;

export const countLabel = (verb: string, n: number) => `${verb} ${n} annotation(s)`;
