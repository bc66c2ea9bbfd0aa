// The ground-truth turn's draw (issue 36 §2): at gt_rate r a queue/next is a ground-truth turn
// when the draw u (uniform in [0, 1)) is below r. Counted over a fixed, seeded sequence of draws,
// so the numbers are exact and the test cannot flake; the queue takes Math.random by default and
// any other draw when injected (groundTruthTurn's last parameter).
import { describe, expect, it } from 'vitest';
import { prng as seeded } from '../image-edit/pixels';
import { isGroundTruthTurn } from './ground-truth';

const turns = (rate: number, draws: number, seed = 36) => {
  const draw = seeded(seed);
  let n = 0;
  for (let i = 0; i < draws; i++) if (isGroundTruthTurn(rate, draw())) n++;
  return n;
};

describe('the ground-truth draw', () => {
  it('at rate 0.5, about half of 10,000 draws are turns (within 2%), the same count every run', () => {
    const n = turns(0.5, 10_000);
    expect(Math.abs(n - 5000)).toBeLessThan(200);
    expect(turns(0.5, 10_000)).toBe(n);
  });

  it('at 0.05 about one in twenty; at 0 none; at 1 every draw', () => {
    expect(Math.abs(turns(0.05, 10_000) - 500)).toBeLessThan(60);
    expect(turns(0, 10_000)).toBe(0);
    expect(turns(1, 10_000)).toBe(10_000);
  });

  it('compares the draw with the rate: below is a turn, at or above is not', () => {
    expect(isGroundTruthTurn(0.5, 0.4999)).toBe(true);
    expect(isGroundTruthTurn(0.5, 0.5)).toBe(false);
    expect(isGroundTruthTurn(0, 0)).toBe(false);
    expect(isGroundTruthTurn(1, 0.999999)).toBe(true);
  });
});
