import { describe, expect, it } from 'vitest';
import { PEER_COLORS } from '../../contract/live';
import { distinctColors, inkOn } from './PeerAvatars';

const peer = (user_id: string, color: string) => ({ user_id, name: user_id, color, can_edit: true });

describe('distinctColors', () => {
  it('keeps the server colours when they differ, and gives a later person of a taken colour the first free one, the same whatever the order', () => {
    const a = peer('a', PEER_COLORS[2]);
    const b = peer('b', PEER_COLORS[2]);
    const c = peer('c', PEER_COLORS[0]);
    const one = distinctColors([b, c, a]);
    expect(one.get('a')).toBe(PEER_COLORS[2]);
    expect(one.get('c')).toBe(PEER_COLORS[0]);
    expect(one.get('b')).toBe(PEER_COLORS[1]);
    expect(distinctColors([a, b, c])).toEqual(one);
  });

  it('never puts a colour that is not a plain hex colour into a style', () => {
    const colors = distinctColors([peer('x', 'red; background: url(https://evil)')]);
    expect(colors.get('x')).toMatch(/^#[0-9a-f]{6}$/);
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
