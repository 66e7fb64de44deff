/**
 * Policy registry: every policy the engine, the admin API and the simulator can run, by name.
 * One import line and one entry per policy.
 */
import type { AnyPolicy } from '../core/policy.js';
import { fifoPolicy } from './fifo/index.js';
import { kairosPolicy } from './kairos/index.js';
import { bigcPolicy } from './bigc/index.js';
import { capacityTargetsPolicy } from './capacity-targets/index.js';
import { bopfPolicy, nbopfPolicy } from './bopf/index.js';
import { drfPolicy } from './drf/index.js';
import { spPolicy } from './sp/index.js';
import { darssPolicy } from './darss/index.js';
import { threeSigmaPolicy } from './threesigma/index.js';
import { rayonPolicy } from './rayon/index.js';
import { capacityPolicy } from './capacity/index.js';
import { pigeonPolicy } from './pigeon/index.js';

export const POLICIES: Record<string, AnyPolicy> = {
  fifo: fifoPolicy,
  kairos: kairosPolicy,
  bigc: bigcPolicy,
  'capacity-targets': capacityTargetsPolicy,
  bopf: bopfPolicy,
  nbopf: nbopfPolicy,
  drf: drfPolicy,
  sp: spPolicy,
  darss: darssPolicy,
  threesigma: threeSigmaPolicy,
  rayon: rayonPolicy,
  capacity: capacityPolicy,
  pigeon: pigeonPolicy,
};

export function getPolicy(name: string): AnyPolicy | undefined {
  return Object.prototype.hasOwnProperty.call(POLICIES, name) ? POLICIES[name] : undefined;
}

export function policyNames(): string[] {
  return Object.keys(POLICIES).sort();
}
