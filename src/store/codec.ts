/** Raw access and value decoding shared by the store modules. */
import type { z } from 'zod';
import { SchedbrainError } from '../core/errors.js';

/** A stored value failed to parse or validate. */
export class StoreDecodeError extends SchedbrainError {
  constructor(
    readonly key: string,
    reason: string,
  ) {
    super(`store value at ${key} is invalid: ${reason}`);
  }
}

// The sublevel type of classic-level is generic enough that we only need these operations.
export interface RawLevel {
  get(key: string): Promise<string | undefined>;
  put(key: string, value: string, opts: { sync: boolean }): Promise<void>;
  del(key: string, opts: { sync: boolean }): Promise<void>;
  batch(ops: Array<{ type: 'put'; key: string; value: string } | { type: 'del'; key: string }>, opts: { sync: boolean }): Promise<void>;
  iterator(opts: { gt?: string; gte?: string; lt?: string; lte?: string; reverse?: boolean; limit?: number }): AsyncIterableIterator<[string, string]>;
  prefixKey(key: string, keyFormat: 'utf8'): string;
}

/** Parses and validates a raw stored string. */
export function decodeValue<T>(key: string, raw: string, schema: z.ZodType<T, z.ZodTypeDef, unknown>): T {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    throw new StoreDecodeError(key, `not JSON (${(e as Error).message})`);
  }
  const r = schema.safeParse(json);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new StoreDecodeError(key, `${i.path.join('.') || '(value)'}: ${i.message}`);
  }
  return r.data;
}
