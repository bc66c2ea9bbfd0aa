// Issue pins and regions in the overlay (no GL): a region's outline, one pin per issue, colours by state.
import { describe, expect, it } from 'vitest';
import { LINE_STRIDE, lineOut } from './geometry';
import { ISSUE_FOCUSED, ISSUE_OPEN, ISSUE_RESOLVED, issueGeometry } from './issues';

const colorOfMarker = (pins: { v: number[] }, n: number) => pins.v[n * 4 * LINE_STRIDE + 5];

describe('issue overlay geometry', () => {
  it('outlines a region, pins every issue, and draws the focused one last in red', () => {
    const line = lineOut(), pins = lineOut();
    issueGeometry(
      [
        { x: 10, y: 20, w: 30, h: 40, status: 'open', focused: true },
        { x: 5, y: 5, status: 'open', focused: false },
        { x: 50, y: 60, status: 'resolved', focused: false },
      ],
      line,
      pins,
    );
    // one closed ring of 4 corners (two vertices each), for the region only
    expect(line.v.length / LINE_STRIDE).toBe(4 * 2);
    expect(line.v[5]).toBe(ISSUE_FOCUSED);
    // three pins of 4 vertices: the others first, the focused one last
    expect(pins.v.length / LINE_STRIDE).toBe(12);
    expect(colorOfMarker(pins, 0)).toBe(ISSUE_OPEN);
    expect(colorOfMarker(pins, 1)).toBe(ISSUE_RESOLVED);
    expect(colorOfMarker(pins, 2)).toBe(ISSUE_FOCUSED);
    // the region's pin sits at its top-left corner
    expect([pins.v[2 * 4 * LINE_STRIDE], pins.v[2 * 4 * LINE_STRIDE + 1]]).toEqual([10, 20]);
  });

  it('draws nothing without issues', () => {
    const line = lineOut(), pins = lineOut();
    issueGeometry([], line, pins);
    expect(line.v).toHaveLength(0);
    expect(pins.v).toHaveLength(0);
  });
});
