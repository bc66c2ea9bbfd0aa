// The project page's tabs (Data, Archive, Classes, Analytics) with their counts: a tablist that the arrow keys
// move along, as the WAI-ARIA tabs pattern has it. Each tab has its own path (issue 29:
// /projects/:projectId/data, /archive, /classes); choosing one navigates there.
import { useRef, type KeyboardEvent } from 'react';
import type { ProjectTab } from '../../lib/links';
import styles from './ProjectPage.module.css';

export type Tab = ProjectTab;
const TABS: { id: Tab; label: string }[] = [
  { id: 'data', label: 'Data' },
  { id: 'archive', label: 'Archive' },
  { id: 'classes', label: 'Classes' },
  { id: 'analytics', label: 'Analytics' },
];

/** `counts`: a tab without one (Analytics) shows none; `hidden`: tabs the role has no use for. */
export function ProjectTabs({ tab, counts, hidden = [], onChoose }: { tab: Tab; counts: Partial<Record<Tab, number>>; hidden?: readonly Tab[]; onChoose(tab: Tab): void }) {
  const tabRefs = useRef<Record<Tab, HTMLButtonElement | null>>({ data: null, archive: null, classes: null, analytics: null });
  const tabs = TABS.filter((t) => !hidden.includes(t.id));
  const onTabKey = (e: KeyboardEvent<HTMLButtonElement>) => {
    const i = tabs.findIndex((t) => t.id === tab);
    const next = e.key === 'ArrowRight' ? tabs[(i + 1) % tabs.length] : e.key === 'ArrowLeft' ? tabs[(i + tabs.length - 1) % tabs.length] : null;
    if (next) {
      e.preventDefault();
      onChoose(next.id);
      tabRefs.current[next.id]?.focus();
    }
  };
  return (
    <div className={styles.tabs} role="tablist" aria-label="Project sections">
      {tabs.map((t) => (
        <button
          key={t.id}
          ref={(el) => {
            tabRefs.current[t.id] = el;
          }}
          type="button"
          role="tab"
          id={`tab-${t.id}`}
          aria-selected={tab === t.id}
          aria-controls={`panel-${t.id}`}
          tabIndex={tab === t.id ? 0 : -1}
          className={styles.tab}
          onClick={() => onChoose(t.id)}
          onKeyDown={onTabKey}
        >
          {t.label}
          {counts[t.id] === undefined ? null : <span className={`${styles.count} tabular`}>{counts[t.id]}</span>}
        </button>
      ))}
    </div>
  );
}
