import { describe, expect, it } from 'vitest';
import { formatBytes, formatRelativeDate, initials, progressTone } from './format';

describe('formatBytes', () => {
  it('uses B, KB, MB and GB', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5 MB');
    expect(formatBytes(3.25 * 1024 ** 3)).toBe('3.25 GB');
  });
});

describe('formatRelativeDate', () => {
  const now = new Date(2025, 4, 20, 15, 0);
  it('shows the time today, Yesterday, N days ago under a week, else a short date', () => {
    expect(formatRelativeDate(new Date(2025, 4, 20, 9, 5).toISOString(), now)).toMatch(/9:05/);
    expect(formatRelativeDate(new Date(2025, 4, 19, 23, 0).toISOString(), now)).toBe('Yesterday');
    expect(formatRelativeDate(new Date(2025, 4, 15, 12, 0).toISOString(), now)).toBe('5 days ago');
    const old = formatRelativeDate(new Date(2025, 3, 2, 12, 0).toISOString(), now);
    expect(old).not.toMatch(/ago|Yesterday/);
    expect(old).toMatch(/2/);
  });
});

describe('progressTone', () => {
  it('is green at 100, blue above 70, amber above 30, red otherwise', () => {
    expect(progressTone(100)).toBe('done');
    expect(progressTone(71)).toBe('high');
    expect(progressTone(70)).toBe('mid');
    expect(progressTone(31)).toBe('mid');
    expect(progressTone(30)).toBe('low');
    expect(progressTone(0)).toBe('low');
  });
});

describe('initials', () => {
  it('takes first and last initials, or the start of an email', () => {
    expect(initials('Ada Lovelace')).toBe('AL');
    expect(initials('grace.hopper@example.com')).toBe('GH');
    expect(initials('')).toBe('?');
  });
});
