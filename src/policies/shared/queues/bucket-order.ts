/**
 * Stable ascending order of items by a non-negative numeric key, for the DRF water-fill: a
 * counting sort on a quantised key, then an insertion sort that puts each bucket's items in exact
 * key order. The quantisation is the key's high 32 bits (sign, exponent and 20 bits of mantissa:
 * they order as the numbers do) scaled linearly onto the buckets, a non-decreasing function of
 * the key, so a bucket only ever holds keys no smaller than the buckets before it and equal keys
 * share a bucket. One scatter pass instead of the radix sort's six (src/policies/shared/
 * order-by-key.ts), which remains the way when the keys share their high bits or a bucket's keys
 * come too far out of order: the insertion sort's moves are counted and bounded.
 */
import { orderByKey } from '../order-by-key.js';

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Below this many items the radix sort's own small-input path (a comparator sort) is used. */
const MIN_ITEMS = 64;
const MAX_BUCKETS = 1 << 16;
/** Insertion-sort moves allowed per item before the radix sort takes over. */
const MOVES_PER_ITEM = 4;

// Working memory kept between calls; calls never overlap.
function newWork(size: number, buckets: number) {
  const plain = new Float64Array(size);
  return { plain, words: new Uint32Array(plain.buffer), bucketOf: new Int32Array(size), start: new Int32Array(buckets) };
}
let work = newWork(0, 0);
const probe = new Float64Array(1);
const probeWords = new Uint32Array(probe.buffer);

/**
 * Positions `0..n-1` ordered by `keys[position]` ascending, ties in position order, written to
 * `order[0..n)`, and the keys in that order to `sortedKeys[0..n)` (−0 as 0). Every key must be
 * a non-negative number (NaN and negative keys do not order correctly).
 */
export function orderByKeyInBuckets(keys: Float64Array, n: number, order: Int32Array, sortedKeys: Float64Array): void {
  if (n < MIN_ITEMS || !LITTLE_ENDIAN || !bucketed(keys, n, order, sortedKeys)) {
    orderByKey(keys, n, order);
    for (let k = 0; k < n; k++) sortedKeys[k] = keys[order[k]] === 0 ? 0 : keys[order[k]];
  }
}

/** The bucket sort; false when it gave up (the radix sort then orders the keys afresh). */
function bucketed(keys: Float64Array, n: number, order: Int32Array, sortedKeys: Float64Array): boolean {
  let buckets = MIN_ITEMS;
  while (buckets < n >> 1 && buckets < MAX_BUCKETS) buckets <<= 1;
  if (work.plain.length < n || work.start.length < buckets) work = newWork(Math.max(n, 2 * work.plain.length), Math.max(buckets, work.start.length));
  const { plain, words, bucketOf, start } = work;
  // Zeros have the first bucket to themselves and the others span the positive keys: a zero's
  // high word, far below any positive key's, would otherwise leave most buckets empty.
  let min = Infinity;
  let max = 0;
  for (let i = 0; i < n; i++) {
    const k = keys[i] === 0 ? 0 : keys[i];
    plain[i] = k;
    if (k > 0 && k < min) min = k;
    if (k > max) max = k;
  }
  probe[0] = min;
  const hiMin = probeWords[1];
  probe[0] = max;
  const hiSpan = probeWords[1] - hiMin;
  // Keys alike in their high bits (or infinite, or none positive): the radix sort's trivial digits skip them.
  if (!(hiSpan > 0) || max === Infinity) return false;
  const scale = (buckets - 2) / hiSpan;
  start.fill(0, 0, buckets);
  for (let i = 0; i < n; i++) {
    const hi = words[2 * i + 1];
    const b = hi === 0 ? 0 : 1 + (((hi - hiMin) * scale) | 0);
    bucketOf[i] = b;
    start[b]++;
  }
  let at = 0;
  for (let b = 0; b < buckets; b++) {
    const c = start[b];
    start[b] = at;
    at += c;
  }
  for (let i = 0; i < n; i++) {
    const p = start[bucketOf[i]]++;
    order[p] = i;
    sortedKeys[p] = plain[i];
  }
  return insertionSorted(order, sortedKeys, n);
}

/**
 * Each item moved back past the larger keys before it (strictly larger: equal keys keep their
 * order). Keys of earlier buckets are never larger, so an item stays in its bucket. False once
 * the moves pass the budget.
 */
function insertionSorted(order: Int32Array, sortedKeys: Float64Array, n: number): boolean {
  let moves = 0;
  const budget = MOVES_PER_ITEM * n;
  for (let p = 1; p < n; p++) {
    const k = sortedKeys[p];
    if (!(k < sortedKeys[p - 1])) continue;
    const item = order[p];
    let q = p - 1;
    do {
      sortedKeys[q + 1] = sortedKeys[q];
      order[q + 1] = order[q];
      q--;
    } while (q >= 0 && sortedKeys[q] > k);
    sortedKeys[q + 1] = k;
    order[q + 1] = item;
    moves += p - 1 - q;
    if (moves > budget) return false;
  }
  return true;
}
