// Imported annotation ids are derived, not random: a resumed import (and one resumed by a newer
// server) must write the very ids it wrote before, so it replaces its shapes instead of adding
// them twice.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { importedId, importedIds } from './convert';

describe('importedId', () => {
  it('is the UUID-shaped SHA-256 of import, file and position, as every earlier run wrote it', () => {
    const h = createHash('sha256').update('imp-1\u0000labels/train/a.txt\u00007').digest('hex');
    const id = importedId('imp-1', 'labels/train/a.txt', 7);
    expect(id).toBe(`${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(importedId('imp-1', 'labels/train/a.txt', 8)).not.toBe(id);
  });

  it('gives the same ids position by position when hashed in a batch (an offload task in the real run)', () => {
    expect(importedIds('imp-1', 'labels/train/a.txt', 9)).toEqual(Array.from({ length: 9 }, (_, i) => importedId('imp-1', 'labels/train/a.txt', i)));
  });
});
