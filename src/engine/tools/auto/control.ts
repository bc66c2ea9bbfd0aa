// Auto-Annotate as the editor offers it (`editor.auto`): the backend the app plugs in, the
// listeners told when a mask is accepted, and Complete / Clear on the prompt. Each call acts only
// while the Auto-Annotate tool is the tool in use (`tool()` is null otherwise).
import type { AutoTool } from '.';
import type { ProposalAccepted, Segmenter } from './types';

export class AutoAnnotate {
  private backend: Segmenter | null = null;
  private readonly listeners = new Set<(e: ProposalAccepted) => void>();

  /** `tool`: the Auto-Annotate tool while it is the tool in use, else null. */
  constructor(readonly tool: () => AutoTool | null) {}

  /**
   * The segmentation backend of the Auto-Annotate tool (the app's, talking to its server), or
   * null: then the tool collects prompts but asks for no mask. Changing it drops the prompt.
   */
  setSegmenter(s: Segmenter | null): void {
    if (s === this.backend) return;
    this.backend = s;
    this.clear();
  }

  get segmenter(): Segmenter | null {
    return this.backend;
  }

  /** Auto-Annotate's mask was accepted (Enter or accept()): make it an annotation. Returns an unsubscribe function. */
  onAccepted(listener: (e: ProposalAccepted) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells the listeners (the tool calls it through ToolApi.proposalAccepted). */
  accepted(e: ProposalAccepted): void {
    for (const l of [...this.listeners]) l(e);
  }

  /** Complete: accepts the mask shown, as Enter does. False when there is none to accept. */
  accept(): boolean {
    return this.tool()?.accept() ?? false;
  }

  /** Clear: drops the points, the box and the mask, and the request in flight. */
  clear(): void {
    this.tool()?.cancel();
  }

  /** A mask is shown and no request runs (Complete is enabled). */
  canAccept(): boolean {
    return this.tool()?.canAccept() ?? false;
  }
}
