import { describe, expect, it } from 'vitest';
import { secondsText } from '../../src/policies/shared/durations.js';

describe('secondsText', () => {
  it('writes milliseconds in seconds to a tenth', () => {
    expect(secondsText(12_345)).toBe('12.3 s');
    expect(secondsText(50_000)).toBe('50 s');
    expect(secondsText(49)).toBe('0 s');
    expect(secondsText(50)).toBe('0.1 s');
  });
});
