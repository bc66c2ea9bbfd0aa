// The round settings button and its 320 px panel (spec section 2): tabs Image, Annotation
// (transparency) and Hotkeys (the real list, from hotkeys.ts).
import * as Popover from '@radix-ui/react-popover';
import * as Tabs from '@radix-ui/react-tabs';
import { Maximize, Settings2, ZoomIn, ZoomOut } from 'lucide-react';
import type { Image } from '../../../contract/images';
import type { Editor } from '../../../engine';
import { Button } from '../../components/Button';
import { formatBytes } from '../../lib/format';
import { HOTKEY_HELP } from './hotkeys';
import { useCamera } from './useEditor';
import styles from './AnnotatePage.module.css';

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
        <Popover.Content className={styles.settingsPanel} side="top" align="end" sideOffset={10} collisionPadding={12}>
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
            </Tabs.Content>
            <Tabs.Content value="hotkeys" className={`${styles.tabPanel} ${styles.hotkeys}`}>
              {HOTKEY_HELP.map((g) => (
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
            </Tabs.Content>
          </Tabs.Root>
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
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
    </>
  );
}
