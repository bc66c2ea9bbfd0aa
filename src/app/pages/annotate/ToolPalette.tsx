// Left tool palette (spec section 2): six tools, each with its hotkey in the tooltip.
import { CircleDot, MousePointer2, Pentagon, Spline, Square, WandSparkles } from 'lucide-react';
import type { ReactNode } from 'react';
import { Tooltip } from '../../components/Tooltip';
import { TOOL_KEY, TOOL_LABELS, type EditorToolId } from './hotkeys';
import styles from './AnnotatePage.module.css';

const ICONS: Record<EditorToolId, ReactNode> = {
  select: <MousePointer2 />,
  auto: <WandSparkles />,
  box: <Square />,
  polygon: <Pentagon />,
  polyline: <Spline />,
  keypoint: <CircleDot />,
};

const ORDER: EditorToolId[] = ['select', 'auto', 'box', 'polygon', 'polyline', 'keypoint'];

export function ToolPalette({ tool, onChoose }: { tool: EditorToolId; onChoose(tool: EditorToolId): void }) {
  return (
    <div className={styles.palette} role="toolbar" aria-label="Tools" aria-orientation="vertical">
      {ORDER.map((t, i) => (
        <Tooltip key={t} side="right" content={<span className={styles.tipKey}>{TOOL_LABELS[t]} <kbd>{TOOL_KEY[t]}</kbd></span>}>
          <button
            type="button"
            className={styles.toolButton}
            aria-label={`${TOOL_LABELS[t]} (${TOOL_KEY[t]})`}
            aria-pressed={tool === t}
            data-divider={i === 2 || undefined}
            onClick={() => onChoose(t)}
          >
            <span aria-hidden="true">{ICONS[t]}</span>
          </button>
        </Tooltip>
      ))}
    </div>
  );
}
