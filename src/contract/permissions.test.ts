import { describe, expect, it } from 'vitest';
import { PERMISSION_PHRASE, PERMISSIONS, roleCan, roleGuide } from './permissions';

describe('the role guide', () => {
  it('lists each role, least trusted first, with what it adds; read from the table', () => {
    const guide = roleGuide();
    expect(guide.map((g) => g.role)).toEqual(['viewer', 'annotator', 'reviewer', 'admin', 'owner']);
    const byRole = Object.fromEntries(guide.map((g) => [g.role, g.adds]));
    expect(byRole.viewer).toContain('export datasets');
    expect(byRole.viewer).not.toContain('annotate and submit for review');
    expect(byRole.annotator).toContain('annotate and submit for review');
    expect(byRole.reviewer).toEqual(expect.arrayContaining(['change stages', 'accept or reject what was submitted']));
    expect(byRole.admin).toContain('invite people, change roles and remove members');
    expect(byRole.owner).toEqual(['manage the plan and billing']);
  });

  it('is exact for the table: what a role may do is what its line and the lines before it say, no more', () => {
    const guide = roleGuide();
    const said = new Set<string>();
    for (const { role, adds } of guide) {
      expect(adds.length).toBeGreaterThan(0);
      for (const phrase of adds) said.add(phrase);
      const may = new Set(PERMISSIONS.filter((p) => roleCan(role, p)).map((p) => PERMISSION_PHRASE[p]));
      expect([...said].sort()).toEqual([...may].sort());
    }
  });
});
