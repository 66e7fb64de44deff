/**
 * Cooperative slicing of long loops on the event loop: a refresh at 10,000 nodes walks 200,000
 * containers and builds maps of them, 0.1–0.5 s of work that, done in one go, holds every admin
 * API request until it ends. A loop asks `due()` every few hundred items and, once its slice of
 * time is spent, awaits `next()`, which lets waiting I/O (a `/healthz` probe) run first.
 */
export class TimeSlicer {
  private sliceStartMs = performance.now();

  /** @param sliceMs How long one slice runs before it gives the event loop a turn. */
  constructor(private readonly sliceMs = 10) {}

  /** Whether the current slice is spent (cheap enough to ask every few hundred items). */
  due(): boolean {
    return performance.now() - this.sliceStartMs >= this.sliceMs;
  }

  /** Gives the event loop a turn (after pending I/O callbacks), then starts a new slice. */
  async next(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceStartMs = performance.now();
  }

  /** `next()` when the slice is spent. */
  async maybeNext(): Promise<void> {
    if (this.due()) await this.next();
  }
}
