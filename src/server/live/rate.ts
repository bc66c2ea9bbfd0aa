/** At most `limit` events in any window of `windowMs`: the times of the last `limit` allowed ones, in a ring. */
export class RateWindow {
  private readonly times: number[] = [];
  private next = 0;

  constructor(
    private readonly limit: number,
    private readonly windowMs = 1000,
  ) {}

  /** Counts the event and returns true when it fits; false (not counted) when it does not. */
  allow(now: number): boolean {
    if (this.times.length < this.limit) {
      this.times.push(now);
      return true;
    }
    // The oldest of the last `limit` events is the one the ring overwrites next.
    if (now - this.times[this.next]! < this.windowMs) return false;
    this.times[this.next] = now;
    this.next = (this.next + 1) % this.limit;
    return true;
  }
}
