import { describe, expect, it } from 'vitest';
import { readFlags, UsageError } from '../../src/sim/params.js';

const spec = {
  policy: { type: 'list' },
  set: { type: 'repeat' },
  seed: { type: 'number', integer: true, min: 0 },
  load: { type: 'number', min: Number.MIN_VALUE },
  scale: { type: 'choice', values: ['cluster', 'sim'] },
  json: { type: 'bool' },
} as const;

describe('readFlags (the simulate commands)', () => {
  it('reads both flag forms, lists, repeats, numbers, choices and help', () => {
    const r = readFlags(['--policy', 'a,b', '--policy=c', '--set', 'x=1', '--set=y=2', '--seed', '7', '--load=0.5', '--scale', 'sim', '--json', '-h'], spec);
    expect(r).toEqual({ values: { policy: ['a', 'b', 'c'], set: ['x=1', 'y=2'], seed: 7, load: 0.5, scale: 'sim', json: true }, help: true });
  });

  it('names the flag in every refusal; a negative value reaches its range check', () => {
    const refused = (argv: string[]) => {
      try {
        readFlags(argv, spec);
      } catch (e) {
        expect(e).toBeInstanceOf(UsageError);
        return (e as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused(['--seed', '-1'])).toBe('--seed: expected an integer ≥ 0, got -1');
    expect(refused(['--seed', '1.5'])).toBe('--seed: expected an integer ≥ 0, got 1.5');
    expect(refused(['--load', '0'])).toBe('--load: expected a number > 0, got 0');
    expect(refused(['--scale', 'big'])).toBe('--scale: expected cluster or sim, got big');
    expect(refused(['--seed'])).toBe('--seed needs a value');
    expect(refused(['--frobnicate'])).toBe('unknown argument --frobnicate');
    expect(refused(['stray'])).toBe('unknown argument stray');
  });
});
