// Small wrappers around localStorage that never throw (private mode, quota, disabled storage).
export const STORAGE_KEYS = {
  sidebarCollapsed: 'vellum.sidebarCollapsed',
  selectedProject: 'vellum.selectedProject',
} as const;

export function readStorage<T>(key: string, fallback: T): T {
  try {
    const raw = window.localStorage.getItem(key);
    return raw === null ? fallback : (JSON.parse(raw) as T);
  } catch {
    return fallback;
  }
}

export function writeStorage(key: string, value: unknown): void {
  try {
    if (value === null || value === undefined) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, JSON.stringify(value));
  } catch {
    /* storage unavailable: keep working in memory */
  }
}
