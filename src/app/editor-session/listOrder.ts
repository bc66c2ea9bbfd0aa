// The annotation list's order as the keyboard walks it (Alt+Down / Alt+Up), pure.

/**
 * Alt+Down / Alt+Up: the shape to select next in the list's order (`listOrder`, top row first),
 * skipping hidden ones. From the selection's last row forward (its first row backward); with
 * nothing selected, the first (or last) row. Null past either end (Tab itself always leaves the
 * canvas: no keyboard trap).
 */
export function nextInList(listOrder: readonly string[], selected: ReadonlySet<string>, hidden: ReadonlySet<string>, step: 1 | -1): string | null {
  const n = listOrder.length;
  let at: number;
  if (selected.size === 0) {
    at = step > 0 ? -1 : n;
  } else {
    let first = -1;
    let last = -1;
    for (let i = 0; i < n; i++) {
      if (!selected.has(listOrder[i]!)) continue;
      if (first < 0) first = i;
      last = i;
    }
    if (first < 0) at = step > 0 ? -1 : n;
    else at = step > 0 ? last : first;
  }
  for (let i = at + step; i >= 0 && i < n; i += step) {
    const id = listOrder[i]!;
    if (!hidden.has(id)) return id;
  }
  return null;
}
