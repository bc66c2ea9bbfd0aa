// Issue pins and regions in the renderer's overlay (issue 29): each issue of the image as a round
// pin (at a point, or at a region's top-left corner) with a white ring, and a region's rectangle
// outlined. Open issues are warning amber, resolved ones muted slate, the one chosen in the issues
// panel (or being written) danger red; the chosen one is drawn last, over the others.
import { pushMarker, pushRing, type LineOut } from './geometry';
import type { RenderIssue } from './protocol';

export const ISSUE_OPEN = 0xf79009;
export const ISSUE_RESOLVED = 0x98a2b3;
export const ISSUE_FOCUSED = 0xd92d20;
/** Pin radius and its white ring, CSS px (larger than a prompt point: a pin is looked for). */
export const ISSUE_PIN_R = 7;
export const ISSUE_PIN_HALO = [1, 1, 1, 1];

export const issueColor = (i: RenderIssue): number => (i.focused ? ISSUE_FOCUSED : i.status === 'open' ? ISSUE_OPEN : ISSUE_RESOLVED);

export function issueGeometry(issues: readonly RenderIssue[], line: LineOut, pins: LineOut): void {
  const ordered = [...issues.filter((i) => !i.focused), ...issues.filter((i) => i.focused)];
  for (const issue of ordered) {
    const color = issueColor(issue);
    if (issue.w !== undefined && issue.h !== undefined) {
      const x1 = issue.x + issue.w, y1 = issue.y + issue.h;
      pushRing(line, [issue.x, issue.y, x1, issue.y, x1, y1, issue.x, y1], 0, 4, true, color, -1);
    }
    pushMarker(pins, issue.x, issue.y, 3, color, -1);
  }
}
