// Left tool palette (spec section 2): eight tools (the brush and the eraser for masks since issue 33), each with the person's hotkey in the tooltip. For a role
// that may not edit (`lockedReason`), every tool but Select stays in place, disabled, and its
// tooltip says why.
import { Brush, CircleDot, Eraser, MousePointer2, Pentagon, Spline, Square, WandSparkles } from 'lucide-react';
import type { ReactNode } from 'react';
import { shortcutKeyLabel } from '../../../contract/preferences';
import { Tooltip } from '../../components/Tooltip';
import { TOOL_LABELS, type EditorToolId } from './hotkeys';
import { useShortcuts } from './hooks/useShortcuts';
import styles from './AnnotatePage.module.css';

const ICONS: Record<EditorToolId, ReactNode> = {
  select: <MousePointer2 />,
  auto: <WandSparkles />,
  box: <Square />,
  polygon: <Pentagon />,
  polyline: <Spline />,
  keypoint: <CircleDot />,
  brush: <Brush />,
  eraser: <Eraser />,
};

const ORDER: EditorToolId[] = ['select', 'auto', 'box', 'polygon', 'polyline', 'keypoint', 'brush', 'eraser'];

/** The tools that only look at the document (the rest edit it). */
export const VIEW_TOOLS: readonly EditorToolId[] = ['select'];

export function ToolPalette({ tool, onChoose, lockedReason = null }: { tool: EditorToolId; onChoose(tool: EditorToolId): void; lockedReason?: string | null }) {
  // The person's own keys (issue 37); with single-key shortcuts off, none is shown.
  const { enabled, tool_keys } = useShortcuts((s) => s.shortcuts);
  const keyOf = (t: EditorToolId) => (enabled ? shortcutKeyLabel(tool_keys[t]) : null);
  return (
    <div className={styles.palette} role="toolbar" aria-label="Tools" aria-orientation="vertical">
      {ORDER.map((t, i) => {
        const locked = lockedReason !== null && !VIEW_TOOLS.includes(t);
        return (
          <Tooltip
            key={t}
            side="right"
            content={
              <span className={styles.tipKey}>
                {TOOL_LABELS[t]} {keyOf(t) ? <kbd>{keyOf(t)}</kbd> : null}
                {locked ? <span className={styles.tipReason}>{lockedReason}</span> : null}
              </span>
            }
          >
            <button
              type="button"
              className={styles.toolButton}
              aria-label={keyOf(t) ? `${TOOL_LABELS[t]} (${keyOf(t)})` : TOOL_LABELS[t]}
              aria-pressed={tool === t}
              aria-disabled={locked || undefined}
              data-divider={i === 2 || i === 6 || undefined}
              onClick={() => !locked && onChoose(t)}
            >
              <span aria-hidden="true">{ICONS[t]}</span>
            </button>
          </Tooltip>
        );
      })}
    </div>
  );
}
