// Brief messages, stacked where they cover no control.
//
// Pages: bottom centre, the newest lowest. Anything marked `data-toast-avoid` that shares the
// stack's column (the Data and Archive tabs' floating selection bar, the upload panel) lifts the
// stack above it, so a toast never hides the toolbar it reports on.
// Editor (/projects/:id/images/:id): its corners hold controls (zoom bottom left, the settings button
// bottom right, the sidebar's Hide All / Copy Previous / Remove All at the bottom of the right
// edge) and the middle of the stage's top and bottom holds its banners and the Auto-Annotate
// bar; the stack sits at the stage's top right, under the banners' row and left of the sidebar.
//
// While the pointer or the focus is on a toast, every toast's clock stops (an Undo stays reachable).
import { useLayoutEffect, useRef, useState } from 'react';
import { CircleCheck, CircleExclamationPoint, X } from 'lucide-react';
import { useToasts } from '../stores/toast';
import styles from './Toaster.module.css';

const EDITOR_PATH = /^\/projects\/[^/]+\/images\/[^/]+$/;
/** Gap between the stack and what it avoids (px). */
const GAP = 12;

type Place = { kind: 'page'; lift: number } | { kind: 'editor' };

export function Toaster() {
  const toasts = useToasts((s) => s.toasts);
  const dismiss = useToasts((s) => s.dismiss);
  const pause = useToasts((s) => s.pause);
  const resume = useToasts((s) => s.resume);
  const ref = useRef<HTMLDivElement>(null);
  const [place, setPlace] = useState<Place>({ kind: 'page', lift: 0 });
  const visible = toasts.length > 0;

  useLayoutEffect(() => {
    if (!visible) return;
    let frame = 0;
    const measure = () => {
      frame = 0;
      if (EDITOR_PATH.test(window.location.pathname)) {
        setPlace((p) => (p.kind === 'editor' ? p : { kind: 'editor' }));
        return;
      }
      const region = ref.current?.getBoundingClientRect();
      let lift = 0;
      if (region) {
        for (const el of document.querySelectorAll<HTMLElement>('[data-toast-avoid]')) {
          const o = el.getBoundingClientRect();
          if (!o.width || !o.height || o.right < region.left || o.left > region.right) continue;
          lift = Math.max(lift, Math.ceil(window.innerHeight - o.top) + GAP);
        }
      }
      setPlace((p) => (p.kind === 'page' && p.lift === lift ? p : { kind: 'page', lift }));
    };
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(measure);
    };
    measure();
    // Bars come and go (a selection, an upload), animate in, and routes change under the stack.
    const observer = new MutationObserver(schedule);
    observer.observe(document.body, { childList: true, subtree: true });
    window.addEventListener('resize', schedule);
    document.addEventListener('animationend', schedule, true);
    window.addEventListener('popstate', schedule);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', schedule);
      document.removeEventListener('animationend', schedule, true);
      window.removeEventListener('popstate', schedule);
      if (frame) cancelAnimationFrame(frame);
    };
  }, [visible, toasts]);

  return (
    <div
      ref={ref}
      className={styles.region}
      data-place={place.kind}
      style={place.kind === 'page' && place.lift ? { bottom: place.lift } : undefined}
      role="status"
      aria-live="polite"
      data-testid="toasts"
      onPointerEnter={pause}
      onPointerLeave={resume}
      onFocus={pause}
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) resume();
      }}
    >
      {toasts.map((t) => (
        <div key={t.id} className={[styles.toast, t.tone !== 'neutral' && styles[t.tone]].filter(Boolean).join(' ')} data-testid="toast">
          {t.tone !== 'neutral' ? <span className={styles.icon} aria-hidden="true">{t.tone === 'success' ? <CircleCheck /> : <CircleExclamationPoint />}</span> : null}
          <span className={styles.message}>{t.message}</span>
          {t.action ? (
            <button
              type="button"
              className={styles.action}
              onClick={() => {
                dismiss(t.id);
                resume();
                t.action!.run();
              }}
            >
              {t.action.label}
            </button>
          ) : null}
          <button
            type="button"
            className={styles.close}
            aria-label="Dismiss message"
            onClick={() => {
              // The toast leaves from under the pointer (no pointer-leave follows): the others run on.
              dismiss(t.id);
              resume();
            }}
          >
            <X aria-hidden="true" />
          </button>
        </div>
      ))}
    </div>
  );
}
