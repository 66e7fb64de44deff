/**
 * What the engine's unit tests set up alike: a store in a fresh directory, a manual clock, and the
 * engine under test, stopped, closed and removed after each test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { FakeClock } from '../../src/engine/clock.js';
import type { Engine } from '../../src/engine/engine.js';
import { Store } from '../../src/store/store.js';

export interface EngineFixture {
  dir: string;
  store: Store;
  clock: FakeClock;
  /** Set by the test; stopped after it. */
  engine?: Engine;
}

/** Registers the per-test set-up and tear-down; the returned object holds the current test's parts. */
export function useEngineFixture(dirPrefix: string): EngineFixture {
  const f = {} as EngineFixture;
  beforeEach(async () => {
    f.dir = mkdtempSync(join(tmpdir(), dirPrefix));
    f.store = await Store.open(f.dir);
    f.clock = new FakeClock();
    f.engine = undefined;
  });
  afterEach(async () => {
    await f.engine?.stop();
    f.engine = undefined;
    await f.store.close();
    rmSync(f.dir, { recursive: true, force: true });
  });
  return f;
}
