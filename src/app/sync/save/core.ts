// What the parts of the save manager share (./manager.ts makes it; ./scheduler.ts, ./conflict.ts
// and ./recovery.ts work on it): the slots, the device's store, the listeners and the clock offset.
import type { SaveDataResponse } from '../../../contract/annotation-api';
import type { DeviceStore } from './device';
import type { Slot } from './slot';
import type { PendingEntry } from './store';
import type { AbsorbedChange, Delta, MergeResult, SaveDeps } from './types';

export interface ManagerCore {
  readonly deps: SaveDeps;
  /** One slot per image with a document open or work on its way. */
  readonly slots: Map<string, Slot>;
  readonly device: DeviceStore;
  readonly mergedListeners: Set<(imageId: string, m: MergeResult) => void>;
  readonly savedListeners: Set<(imageId: string, r: SaveDataResponse) => void>;
  readonly absorbedListeners: Set<(imageId: string, a: AbsorbedChange) => void>;
  /** Server clock minus local clock (ms), learnt from each save's saved_at. */
  offset: number;
  /** A 409 was merged and nothing changed since: the top bar says so. */
  mergedNotice: boolean;
  disposed: boolean;
  /** Tells the status listeners when the status changed. */
  emit(): void;
  /** A change of the slot's image as an entry of this tab (`local`: kept in this tab only). */
  newEntry(s: Slot, delta: Delta, local?: boolean): PendingEntry;
}
