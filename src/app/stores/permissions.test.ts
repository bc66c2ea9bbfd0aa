// memberRole: the member's role in one organization (not necessarily the current one), read from
// the session store and followed as the profile is read again.
import { afterEach, describe, expect, it } from 'vitest';
import type { Organization } from '../../contract/account';
import { memberRole } from './permissions';
import { useSession } from './session';

const org = (id: string, user_role: Organization['user_role']) => ({ id, name: id, user_role }) as unknown as Organization;

describe('memberRole', () => {
  afterEach(() => useSession.setState({ organizations: [], currentOrganization: null }));

  it("reads the role in the organization asked for, and tells its listener when the profile's organizations change", () => {
    useSession.setState({ organizations: [org('a', 'viewer'), org('b', 'admin')], currentOrganization: org('b', 'admin') });
    const source = memberRole('a');
    expect(source.role()).toBe('viewer');
    let told = 0;
    const off = source.subscribe(() => told++);
    useSession.setState({ organizations: [org('a', 'annotator'), org('b', 'admin')] });
    expect(told).toBe(1);
    expect(source.role()).toBe('annotator');
    // A membership lost: no role.
    useSession.setState({ organizations: [org('b', 'admin')] });
    expect(source.role()).toBeNull();
    off();
    useSession.setState({ organizations: [org('a', 'viewer')] });
    expect(told).toBe(2);
    expect(memberRole('c').role()).toBeNull();
  });
});
