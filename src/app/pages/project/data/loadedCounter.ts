// The Data and Archive tabs' counter: how many images are loaded of how many match. A capped total
// (the server stopped counting at LIST_TOTAL_CAP, 1,000 by default: pagination.totalCapped) reads
// "1,000+": more images match, and the exact number comes with the last page. The number is the
// answer's totalItems, so a server with another cap is shown as it counts.

/** "200 / 834 loaded", or "200 / 1,000+ loaded" when the total is capped. */
export function loadedCounterText(loaded: number, total: number, capped: boolean): string {
  return `${loaded.toLocaleString()} / ${total.toLocaleString()}${capped ? '+' : ''} loaded`;
}

/** The counter's tooltip: why a capped total has a "+", nothing otherwise. */
export function loadedCounterTitle(total: number, capped: boolean): string | undefined {
  return capped ? `More than ${total.toLocaleString()} images match; the exact number shows once the last of them is loaded` : undefined;
}
