// The embedded identity service's limits (issue 15, item 2), all numbers in one place, and the one
// piece of machinery under them: event times per key within a window, kept in this process's
// memory (a restart forgets them; each server process counts on its own). Client addresses are
// request.ip, which believes X-Forwarded-For only from the proxies TRUST_PROXY names. README.md,
// "Security", lists these numbers: change both together.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export interface Limit {
  max: number;
  windowMs: number;
}

/** Wrong passwords per (account, client address): past 10 in 15 minutes, that pair waits. */
export const SIGN_IN_FAILURES_PER_PAIR: Limit = { max: 10, windowMs: 15 * MINUTE };
/** Wrong passwords per account, from any address: past 20 in 15 minutes each next attempt waits
 * twice as long as the one before, at most 5 minutes. */
export const ACCOUNT_FREE_FAILURES = 20;
export const ACCOUNT_MAX_WAIT_S = 300;
export const ACCOUNT_FAILURE_WINDOW_MS = 15 * MINUTE;

/** Sign-up requests per client address (both /auth/v1/signup and /api/v1/auth/signup, whatever
 * their outcome). Supabase allows 30 per 5 minutes per address (sign-ups and sign-ins together);
 * 100 an hour is stricter over the hour and still lets a whole office behind one NAT sign up on
 * its first day (and the API test suite, which signs up about 80 users on one server). */
export const SIGN_UPS_PER_ADDRESS: Limit = { max: 100, windowMs: HOUR };

/** Mails to one address: one a minute (GoTrue's default SMTP max frequency; also kept in the
 * database for re-sent confirmations and e-mail changes) and 5 an hour, so nobody's inbox can be
 * flooded with our mails. */
export const MAIL_MIN_INTERVAL_MS = MINUTE;
export const MAILS_PER_RECIPIENT: Limit = { max: 5, windowMs: HOUR };
/** Mail-sending requests per client address, to any recipients (Supabase's project-wide default
 * with your own SMTP is 30 an hour): the server cannot be used to spray mail. A sign-up that only
 * pretends to mail (the address has a confirmed account) counts too, so that a throttled answer
 * does not tell registered addresses from others. */
export const MAILS_PER_ADDRESS: Limit = { max: 30, windowMs: HOUR };

/** Refresh-token grants per client address: GoTrue's token_refresh default (1800 an hour, here 150
 * per 5 minutes). supabase-js refreshes about once an hour per browser, so that is hundreds of
 * browsers behind one NAT; a client hammering the endpoint stops within seconds. */
export const REFRESHES_PER_ADDRESS: Limit = { max: 150, windowMs: 5 * MINUTE };
/** Refreshes of one session (its chain of refresh tokens), from any address: a real client
 * refreshes one session about once an hour, a client in a loop many times a second. */
export const REFRESHES_PER_SESSION: Limit = { max: 30, windowMs: 5 * MINUTE };

/** Event times per key within a window; the subclasses say how long the next attempt waits. */
export abstract class EventLog {
  private readonly entries = new Map<string, number[]>();

  constructor(protected readonly windowMs: number) {}

  protected recent(key: string, now: number): number[] {
    const list = (this.entries.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (list.length) this.entries.set(key, list);
    else this.entries.delete(key);
    return list;
  }

  /** Seconds to wait, or 0 when another attempt is allowed. */
  abstract retryAfter(key: string, now?: number): number;

  record(key: string, now = Date.now()): void {
    if (this.entries.size > 50_000) this.entries.clear();
    this.entries.set(key, [...this.recent(key, now), now]);
  }

  clear(key: string): void {
    this.entries.delete(key);
  }
}

/** At most `max` events per key in the window; then wait until the oldest that counts leaves it. */
export class WindowLimit extends EventLog {
  private readonly max: number;

  constructor(limit: Limit) {
    super(limit.windowMs);
    this.max = limit.max;
  }

  retryAfter(key: string, now = Date.now()): number {
    const list = this.recent(key, now);
    if (list.length < this.max) return 0;
    return Math.max(1, Math.ceil((list[list.length - this.max]! + this.windowMs - now) / 1000));
  }

  /** 0 and the event recorded when allowed, else the seconds to wait (nothing recorded). */
  take(key: string, now = Date.now()): number {
    const wait = this.retryAfter(key, now);
    if (wait === 0) this.record(key, now);
    return wait;
  }
}

/**
 * Failed password sign-ins per account, from any address: past `free` in the window, each further
 * attempt waits twice as long as the one before, up to `maxWaitS` (what hosted identity services
 * do). Rotating addresses, or a proxy header, buys an attacker nothing, and the owner is never
 * locked out for longer than the cap.
 */
export class AccountBackoff extends EventLog {
  constructor(
    private readonly free: number,
    private readonly maxWaitS: number,
    windowMs: number,
  ) {
    super(windowMs);
  }

  retryAfter(key: string, now = Date.now()): number {
    const list = this.recent(key, now);
    if (list.length < this.free) return 0;
    const waitMs = Math.min(2 ** (list.length - this.free), this.maxWaitS) * 1000;
    return Math.max(0, Math.ceil((list[list.length - 1]! + waitMs - now) / 1000));
  }
}

/** "45 seconds", "12 minutes": a wait as the app shows it. */
export function waitInWords(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}
