/**
 * N-BoPF (BoPF paper's baseline): BoPF without the soft-guarantee class — an LQ that passes the
 * safety and fairness conditions but not the resource condition is made elastic. It is BoPF with
 * one switch, so it lives in BoPF's folder (a policy imports no other policy's folder).
 */
import { makeBopfPolicy } from './policy.js';

export const nbopfPolicy = makeBopfPolicy(
  'nbopf',
  'nbopf',
  'Naive BoPF: like BoPF but without soft guarantees (LQs failing the resource condition are elastic).',
);
