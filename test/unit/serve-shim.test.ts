/** `schedbrain serve` shim wiring: the default shim URL and the lease TTL. */
import { describe, expect, it } from 'vitest';
import { defaultShimUrls, leaseTtlFor } from '../../src/cli/main.js';

describe('serve shim wiring', () => {
  it('defaults the shim URL to the embedded mini cluster shim; configured URLs win', () => {
    expect(defaultShimUrls([], 'http://127.0.0.1:40123')).toEqual(['http://127.0.0.1:40123']);
    expect(defaultShimUrls(['http://nm1:18042'], 'http://127.0.0.1:40123')).toEqual(['http://nm1:18042']);
    expect(defaultShimUrls([], undefined)).toEqual([]);
  });

  it('keeps the lease TTL at least three engine periods', () => {
    expect(leaseTtlFor(30_000, 10_000)).toBe(30_000);
    expect(leaseTtlFor(30_000, 500)).toBe(30_000);
    expect(leaseTtlFor(30_000, 20_000)).toBe(60_000);
  });
});
