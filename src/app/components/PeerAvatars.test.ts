import { describe, expect, it } from 'vitest';
import { PEER_COLORS, peerColor } from '../../contract/live';
import { inkOn, peerColorOf } from './PeerAvatars';

describe('peerColorOf', () => {
  it('draws a person in the colour the server gave them, also one that is not their own (they gave way to someone of the same colour)', () => {
    const given = PEER_COLORS.find((c) => c !== peerColor('ada'))!;
    expect(peerColorOf({ user_id: 'ada', name: 'Ada', color: given, can_edit: true })).toBe(given);
    expect(peerColorOf({ user_id: 'ada', name: 'Ada', color: '#4363D8', can_edit: true })).toBe('#4363d8');
  });

  it('never puts a colour that is not a plain hex colour into a style', () => {
    expect(peerColorOf({ user_id: 'x', name: 'X', color: 'red; background: url(https://evil)', can_edit: true })).toMatch(/^#[0-9a-f]{6}$/);
  });
});

describe('inkOn', () => {
  it('writes initials in dark ink on the light colours and in white on the dark ones', () => {
    expect(inkOn('#42d4f4')).toBe('dark');
    expect(inkOn('#3cb44b')).toBe('dark');
    expect(inkOn('#4363d8')).toBe('light');
    expect(inkOn('#911eb4')).toBe('light');
  });
});
