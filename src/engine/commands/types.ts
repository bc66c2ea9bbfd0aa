// A command is a pure function over the document draft (through DocTx) plus a history label.
import type { DocState, DocTx } from '../model/document';
import type { JsonValue, SkeletonDefinition } from '../model/types';

/**
 * The attributes an annotation of class `cls` holds, given the ones it has (issue 19): the app
 * plugs in its classes' definitions (Editor.setAttributesPolicy). New shapes get the defaults; a
 * class change keeps the values that fit the new class and fills in its defaults.
 */
export type AttributesPolicy = (cls: string, current: readonly JsonValue[]) => readonly JsonValue[];

/** The attributes of an annotation that has none (one shared empty list, so a policy that keeps them is seen to). */
export const NO_ATTRIBUTES: readonly JsonValue[] = Object.freeze([]);

export interface CommandEnv {
  /** Fresh annotation ids (paste). */
  newId(): string;
  /** Unset: attributes stay as they are. */
  attributesFor?: AttributesPolicy;
  /** A class's skeleton (editor.skeletons.set), or null: set-class keeps skeletons on skeleton classes of their size. */
  skeletonOf?: (className: string) => SkeletonDefinition | null;
}

export interface Command<P, R = void> {
  readonly name: string;
  /** The history label, e.g. 'Delete 3 annotation(s)'. */
  label(payload: P, doc: DocState): string;
  run(tx: DocTx, payload: P, env: CommandEnv): R;
}

export const defineCommand = <P, R = void>(c: Command<P, R>): Command<P, R> => c;

export const countLabel = (verb: string, n: number) => `${verb} ${n} annotation(s)`;
