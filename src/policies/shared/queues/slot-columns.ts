/**
 * Records kept as numbers in typed arrays, one slot per record: `intsPerSlot` Int32 values and
 * `floatsPerSlot` Float64 values each. A structure that keeps tens of thousands of small records
 * (BoPF's admitted queues) keeps their numbers here: typed arrays live outside the collected
 * heap, so the garbage collector neither copies nor traces them, where one object per record is
 * copied at young-generation collections until it is promoted. Objects are made from a slot only
 * when someone reads it. Storage comes in chunks of `CHUNK_SLOTS` slots, so growing never copies.
 */
export const CHUNK_SHIFT = 12;
export const CHUNK_SLOTS = 1 << CHUNK_SHIFT;
const IN_CHUNK = CHUNK_SLOTS - 1;
const FIRST_CHUNK_SLOTS = 64;

export class SlotColumns {
  /** Chunk c holds slots c × CHUNK_SLOTS …; slot s's ints start at (s & IN_CHUNK) × intsPerSlot. */
  readonly intChunks: Int32Array[] = [];
  readonly floatChunks: Float64Array[] = [];
  /** Slots in use: 0 … size − 1. */
  size = 0;

  constructor(
    readonly intsPerSlot: number,
    readonly floatsPerSlot: number,
  ) {}

  /** A new slot, all its values zero. Slots are never reused. */
  add(): number {
    if ((this.size & IN_CHUNK) === 0 || this.size === FIRST_CHUNK_SLOTS) this.#grow();
    return this.size++;
  }

  // Apart from `add`, which runs for every record: this runs once per chunk, too rarely for the
  // optimizer to have seen it, and inlined it would drop `add`'s optimized code each time.
  #grow(): void {
    if (this.size === FIRST_CHUNK_SLOTS) {
      // The first chunk grows to full size once its small start is used up.
      const ints = new Int32Array(CHUNK_SLOTS * this.intsPerSlot);
      ints.set(this.intChunks[0]);
      this.intChunks[0] = ints;
      const floats = new Float64Array(CHUNK_SLOTS * this.floatsPerSlot);
      floats.set(this.floatChunks[0]);
      this.floatChunks[0] = floats;
      return;
    }
    // The first chunk small (most structures hold a few records), the others full size.
    const n = this.size === 0 ? FIRST_CHUNK_SLOTS : CHUNK_SLOTS;
    this.intChunks.push(new Int32Array(n * this.intsPerSlot));
    this.floatChunks.push(new Float64Array(n * this.floatsPerSlot));
  }

  /** The chunk of ints holding `slot`; its values start at `intAt(slot)`. */
  ints(slot: number): Int32Array {
    return this.intChunks[slot >> CHUNK_SHIFT];
  }

  intAt(slot: number): number {
    return (slot & IN_CHUNK) * this.intsPerSlot;
  }

  floats(slot: number): Float64Array {
    return this.floatChunks[slot >> CHUNK_SHIFT];
  }

  floatAt(slot: number): number {
    return (slot & IN_CHUNK) * this.floatsPerSlot;
  }

  /** One int of a slot. */
  int(slot: number, k: number): number {
    return this.intChunks[slot >> CHUNK_SHIFT][(slot & IN_CHUNK) * this.intsPerSlot + k];
  }

  setInt(slot: number, k: number, value: number): void {
    this.intChunks[slot >> CHUNK_SHIFT][(slot & IN_CHUNK) * this.intsPerSlot + k] = value;
  }

  float(slot: number, k: number): number {
    return this.floatChunks[slot >> CHUNK_SHIFT][(slot & IN_CHUNK) * this.floatsPerSlot + k];
  }

  setFloat(slot: number, k: number, value: number): void {
    this.floatChunks[slot >> CHUNK_SHIFT][(slot & IN_CHUNK) * this.floatsPerSlot + k] = value;
  }
}
