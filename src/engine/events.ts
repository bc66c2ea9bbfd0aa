// What the editor tells its listeners: state changes (subscribe) and discrete events for the UI
// (onEvent: toasts, dialogs).
import type { ChangedIds } from './model/document';
import type { ToolId } from './view';

/** A change notification: which annotation ids changed, and whether view or camera did. */
export interface EditorChange {
  readonly document: ChangedIds | null;
  readonly view: boolean;
  readonly camera: boolean;
}

export type EditorEvent =
  /** A drawing tool was used with no active class: the SPA opens the class picker / dialog. */
  | { readonly type: 'needs-class'; readonly tool: ToolId }
  /** A box was released below the 10 x 10 minimum and discarded. */
  | { readonly type: 'too-small'; readonly tool: ToolId }
  /** A hole could not be cut (the result would not be a single polygon). */
  | { readonly type: 'invalid-hole'; readonly id: string }
  | { readonly type: 'created'; readonly id: string }
  | { readonly type: 'copied'; readonly count: number }
  /** New shapes from a paste (also Copy Previous), in paint order. */
  | { readonly type: 'pasted'; readonly count: number; readonly ids: readonly string[] };
