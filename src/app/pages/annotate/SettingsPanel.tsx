// The round settings button and its 320 px panel (spec section 2): tabs Image (facts, zoom, and
// the session's brightness / contrast / gamma), Annotation (transparency, class-name labels,
// crosshair guides, outline width) and Hotkeys (the person's shortcut settings, then the real list, from hotkeys.ts). Display settings live in
// viewSettings.ts; the canvas reads them from there.
import * as Popover from '@radix-ui/react-popover';
import * as Tabs from '@radix-ui/react-tabs';
import { Maximize, RotateCcw, Settings2, ZoomIn, ZoomOut } from 'lucide-react';
import type { Image } from '../../../contract/images';
import type { Editor } from '../../../engine';
import { Button } from '../../components/Button';
import { formatBytes } from '../../lib/format';
import { hotkeyHelp } from './hotkeys';
import { ShortcutSettings } from './ShortcutSettings';
import { useShortcuts } from './hooks/useShortcuts';
import { useCamera } from './useEditor';
import { OUTLINE_WIDTHS, unadjusted, useViewSettings, type ImageAdjustments } from '../../stores/viewSettings';
import styles from './AnnotatePage.module.css';
import own from './SettingsPanel.module.css';

export interface SettingsPanelProps {
  editor: Editor;
  image: Image;
  transparency: number;
  onTransparency(value: number): void;
}

export function SettingsPanel({ editor, image, transparency, onTransparency }: SettingsPanelProps) {
  return (
    <Popover.Root>
      <Popover.Trigger asChild>
        <button type="button" className={styles.settingsButton} aria-label="Editor settings">
          <Settings2 aria-hidden="true" />
        </button>
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content className={styles.settingsPanel} aria-label="Editor settings" side="top" align="end" sideOffset={10} collisionPadding={12}>
          <Tabs.Root defaultValue="annotation">
            <Tabs.List className={styles.tabs} aria-label="Editor settings">
              <Tabs.Trigger className={styles.tab} value="image">Image</Tabs.Trigger>
              <Tabs.Trigger className={styles.tab} value="annotation">Annotation</Tabs.Trigger>
              <Tabs.Trigger className={styles.tab} value="hotkeys">Hotkeys</Tabs.Trigger>
            </Tabs.List>
            <Tabs.Content value="image" className={styles.tabPanel}>
              <ImageTab editor={editor} image={image} />
            </Tabs.Content>
            <Tabs.Content value="annotation" className={styles.tabPanel}>
              <label className={styles.sliderLabel} htmlFor="editor-transparency">
                <span>Transparency</span>
                <span className={styles.num}>{transparency}%</span>
              </label>
              <input
                id="editor-transparency"
                className={styles.slider}
                type="range"
                min={0}
                max={100}
                step={1}
                value={transparency}
                onChange={(e) => onTransparency(Number(e.target.value))}
              />
              <p className={styles.note}>Fills use this transparency. Hovering an annotation shows it at 90% transparency.</p>
              <DisplayControls />
            </Tabs.Content>
            <Tabs.Content value="hotkeys" className={`${styles.tabPanel} ${styles.hotkeys}`}>
              <HotkeyList />
            </Tabs.Content>
          </Tabs.Root>
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}

/** The shortcut settings, then every key as it works now (the person's tool keys; the single keys marked off while they are). */
function HotkeyList() {
  const shortcuts = useShortcuts((s) => s.shortcuts);
  return (
    <>
      <ShortcutSettings />
      {hotkeyHelp(shortcuts, shortcuts.enabled).map((g) => (
        <section key={g.group}>
          <h3 className={styles.hotkeyGroup}>{g.group}</h3>
          <dl className={styles.hotkeyList}>
            {g.items.map((item) => (
              <div key={item.what} className={styles.hotkeyRow}>
                <dt>
                  {item.keys.map((k) => (
                    <kbd key={k}>{k}</kbd>
                  ))}
                </dt>
                <dd>{item.what}</dd>
              </div>
            ))}
          </dl>
        </section>
      ))}
    </>
  );
}

function ImageTab({ editor, image }: { editor: Editor; image: Image }) {
  const camera = useCamera(editor);
  const size = editor.getImageSize();
  return (
    <>
      <dl className={styles.facts}>
        <div>
          <dt>Name</dt>
          <dd title={image.filename}>{image.filename}</dd>
        </div>
        <div>
          <dt>Size</dt>
          <dd className={styles.num}>{size ? `${size.width.toLocaleString()} × ${size.height.toLocaleString()} px` : 'Unknown'}</dd>
        </div>
        <div>
          <dt>File</dt>
          <dd className={styles.num}>{formatBytes(image.file_size)}</dd>
        </div>
        <div>
          <dt>Zoom</dt>
          <dd className={styles.num}>{Math.round(camera.scale * 100)}%</dd>
        </div>
      </dl>
      <div className={styles.zoomRow}>
        <Button size="sm" icon={<ZoomOut />} onClick={() => editor.zoomOut()} aria-label="Zoom out">
          Out
        </Button>
        <Button size="sm" icon={<Maximize />} onClick={() => editor.fitToScreen()}>
          Fit
        </Button>
        <Button size="sm" icon={<ZoomIn />} onClick={() => editor.zoomIn()} aria-label="Zoom in">
          In
        </Button>
      </div>
      <Adjustments />
    </>
  );
}

const ADJUSTMENTS: { key: keyof ImageAdjustments; label: string; min: number; max: number; step: number; show(v: number): string }[] = [
  { key: 'brightness', label: 'Brightness', min: 0.2, max: 2, step: 0.01, show: (v) => `${Math.round(v * 100)}%` },
  { key: 'contrast', label: 'Contrast', min: 0.2, max: 2, step: 0.01, show: (v) => `${Math.round(v * 100)}%` },
  { key: 'gamma', label: 'Gamma', min: 0.2, max: 3, step: 0.05, show: (v) => v.toFixed(2) },
];

/** Brightness, contrast and gamma of the image as drawn here, for this session. */
function Adjustments() {
  const adjustments = useViewSettings((s) => s.adjustments);
  const adjust = useViewSettings((s) => s.adjust);
  const reset = useViewSettings((s) => s.resetAdjustments);
  return (
    <section className={own.section} aria-labelledby="editor-adjust-title">
      <div className={own.sectionHead}>
        <h3 id="editor-adjust-title" className={own.sectionTitle}>Adjustments</h3>
        <Button size="sm" variant="ghost" icon={<RotateCcw />} onClick={reset} disabledReason={unadjusted(adjustments) ? 'The image is shown as it is' : null}>
          Reset
        </Button>
      </div>
      {ADJUSTMENTS.map((a) => (
        <div key={a.key} className={own.field}>
          <label className={styles.sliderLabel} htmlFor={`editor-${a.key}`}>
            <span>{a.label}</span>
            <span className={styles.num}>{a.show(adjustments[a.key])}</span>
          </label>
          <input
            id={`editor-${a.key}`}
            className={styles.slider}
            type="range"
            min={a.min}
            max={a.max}
            step={a.step}
            value={adjustments[a.key]}
            onChange={(e) => adjust({ [a.key]: Number(e.target.value) })}
          />
        </div>
      ))}
      <p className={styles.note}>Only how the image looks here, for this session. The stored image does not change.</p>
    </section>
  );
}

/** Class-name labels on the canvas, collaborators, the box tool's crosshair and the outline width (kept on this device). */
function DisplayControls() {
  const labels = useViewSettings((s) => s.labels);
  const setLabels = useViewSettings((s) => s.setLabels);
  const width = useViewSettings((s) => s.outlineWidth);
  const setWidth = useViewSettings((s) => s.setOutlineWidth);
  const collaborators = useViewSettings((s) => s.collaborators);
  const setCollaborators = useViewSettings((s) => s.setCollaborators);
  const crosshair = useViewSettings((s) => s.crosshair);
  const setCrosshair = useViewSettings((s) => s.setCrosshair);
  return (
    <section className={own.section} aria-label="Display">
      <label className={own.switchRow}>
        <span>Show class names</span>
        <input type="checkbox" role="switch" className={own.switch} checked={labels} onChange={(e) => setLabels(e.target.checked)} />
      </label>
      <p className={styles.note}>Where many annotations are in view, only the hovered and selected ones are named.</p>
      <label className={own.switchRow}>
        <span>Show collaborators</span>
        <input type="checkbox" role="switch" className={own.switch} checked={collaborators} onChange={(e) => setCollaborators(e.target.checked)} />
      </label>
      <p className={styles.note}>The people on this image, in the top bar.</p>
      <label className={own.switchRow}>
        <span>Crosshair guides</span>
        <input type="checkbox" role="switch" className={own.switch} checked={crosshair} onChange={(e) => setCrosshair(e.target.checked)} />
      </label>
      <p className={styles.note}>Lines across the whole image at the pointer while drawing boxes.</p>
      <div className={own.field}>
        <span id="editor-outline-width" className={styles.sliderLabel}>Outline width</span>
        <div role="radiogroup" aria-labelledby="editor-outline-width" className={own.segmented}>
          {OUTLINE_WIDTHS.map((w) => (
            <label key={w.value} className={own.segment}>
              <input type="radio" name="editor-outline-width" value={w.value} checked={width === w.value} onChange={() => setWidth(w.value)} />
              <span className={own.lineSample} style={{ height: w.value }} aria-hidden="true" />
              {w.label}
              <small>{w.value} px</small>
            </label>
          ))}
        </div>
      </div>
    </section>
  );
}
