/**
 * Slots of records by name: an open-addressing hash table in typed arrays (linear probing,
 * deletion by backward shift), the names read from the records themselves. Building a Map of
 * 20,000 names took about 2.5 ms here, each insert writing into the Map's table on the collected
 * heap; this table lives outside it and an insert is a hash and a probe or two.
 */
export class NameIndex {
  /** Per bucket: slot + 1, 0 when empty. */
  #slots = new Int32Array(1024);
  /** Per bucket: the name's hash (kept so growing and deleting need not hash again). */
  #hashes = new Int32Array(1024);
  #mask = 1023;
  #count = 0;

  /** `records[slot].name` is the name of `slot`. */
  constructor(private readonly records: readonly { readonly name: string }[]) {}

  get size(): number {
    return this.#count;
  }

  /** The slot named `name`, or -1. */
  get(name: string): number {
    const h = this.#hashOf(name);
    const slots = this.#slots;
    for (let b = h & this.#mask; ; b = (b + 1) & this.#mask) {
      const s = slots[b];
      if (s === 0) return -1;
      if (this.#hashes[b] === h && this.records[s - 1].name === name) return s - 1;
    }
  }

  /** Names `slot` (replacing the slot the name had). */
  set(name: string, slot: number): void {
    if (2 * (this.#count + 1) > this.#slots.length) this.#grow();
    const h = this.#hashOf(name);
    const slots = this.#slots;
    let b = h & this.#mask;
    for (; slots[b] !== 0; b = (b + 1) & this.#mask) {
      if (this.#hashes[b] === h && this.records[slots[b] - 1].name === name) {
        slots[b] = slot + 1;
        return;
      }
    }
    slots[b] = slot + 1;
    this.#hashes[b] = h;
    this.#count++;
  }

  /** Forgets `name`; false when it was not there. */
  delete(name: string): boolean {
    const h = this.#hashOf(name);
    const slots = this.#slots;
    const hashes = this.#hashes;
    const mask = this.#mask;
    let b = h & mask;
    for (; ; b = (b + 1) & mask) {
      if (slots[b] === 0) return false;
      if (hashes[b] === h && this.records[slots[b] - 1].name === name) break;
    }
    // Backward shift: later entries of the run move up into the hole when their home allows it.
    let hole = b;
    for (let j = (b + 1) & mask; slots[j] !== 0; j = (j + 1) & mask) {
      const home = hashes[j] & mask;
      // Entry j may fill the hole unless its home lies cyclically in (hole, j].
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        slots[hole] = slots[j];
        hashes[hole] = hashes[j];
        hole = j;
      }
    }
    slots[hole] = 0;
    this.#count--;
    return true;
  }

  // The last name hashed: a lookup is usually followed by an insert of the same name.
  #lastName = '';
  #lastHash = hash('');

  #hashOf(name: string): number {
    if (name !== this.#lastName) {
      this.#lastHash = hash(name);
      this.#lastName = name;
    }
    return this.#lastHash;
  }

  #grow(): void {
    const oldSlots = this.#slots;
    const oldHashes = this.#hashes;
    // Four times the buckets: fewer rehashes of the whole table while it fills.
    const size = 4 * oldSlots.length;
    const slots = new Int32Array(size);
    const hashes = new Int32Array(size);
    const mask = size - 1;
    for (let b = 0; b < oldSlots.length; b++) {
      if (oldSlots[b] === 0) continue;
      let to = oldHashes[b] & mask;
      while (slots[to] !== 0) to = (to + 1) & mask;
      slots[to] = oldSlots[b];
      hashes[to] = oldHashes[b];
    }
    this.#slots = slots;
    this.#hashes = hashes;
    this.#mask = mask;
  }
}

/** FNV-1a over the UTF-16 code units, mixed at the end so that the low bits (the bucket) depend on every unit. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  return h ^ (h >>> 13);
}
