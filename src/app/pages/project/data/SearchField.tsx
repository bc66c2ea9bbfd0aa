// The Data tab's search by file name: typed text reaches the list 250 ms after the last key, the
// clear button and Escape empty it, '/' anywhere outside a field puts the caret in it. A search looks
// through every folder (useDataView keeps the folder open beneath it).
import { useEffect, useRef, useState } from 'react';
import { Search, X } from 'lucide-react';
import { Spinner } from '../../../components/Spinner';
import { useDataView } from '../../../stores/dataView';
import styles from './DataTab.module.css';

export const SEARCH_DEBOUNCE_MS = 250;

export function SearchField({ busy }: { busy: boolean }) {
  const search = useDataView((s) => s.search);
  const [text, setText] = useState(search);
  const input = useRef<HTMLInputElement>(null);

  // The search ends elsewhere too (opening a folder, 'Clear search' in the empty state).
  useEffect(() => {
    setText((t) => (t.trim() === search ? t : search));
  }, [search]);

  useEffect(() => {
    if (text.trim() === useDataView.getState().search) return;
    const timer = window.setTimeout(() => useDataView.getState().setSearch(text), SEARCH_DEBOUNCE_MS);
    return () => window.clearTimeout(timer);
  }, [text]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey) return;
      const t = e.target as HTMLElement | null;
      if (t?.closest('input, textarea, select, [contenteditable="true"], [role="dialog"], [role="menu"]')) return;
      e.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const clear = () => {
    setText('');
    useDataView.getState().setSearch('');
    input.current?.focus();
  };

  return (
    <div className={styles.search} role="search">
      <span className={styles.searchIcon} aria-hidden="true">
        {busy ? <Spinner size="sm" /> : <Search />}
      </span>
      <input
        ref={input}
        type="search"
        className={styles.searchInput}
        aria-label="Search images by file name"
        aria-keyshortcuts="/"
        placeholder="Search by file name"
        value={text}
        maxLength={200}
        autoComplete="off"
        spellCheck={false}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && text) {
            e.preventDefault();
            e.stopPropagation();
            clear();
          } else if (e.key === 'Enter') {
            // Enter searches at once, without waiting for the pause.
            useDataView.getState().setSearch(text);
          }
        }}
      />
      {text ? (
        <button type="button" className={styles.searchClear} aria-label="Clear search" onClick={clear}>
          <X aria-hidden="true" />
        </button>
      ) : (
        <kbd className={styles.searchKey} aria-hidden="true">
          /
        </kbd>
      )}
    </div>
  );
}
