/**
 * Time as the engine sees it. The loop only ever asks for "now" and "call me back in N ms",
 * so tests drive it with FakeClock and no real waiting.
 */
export interface TimerHandle {
  readonly id: number;
}

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** `fn` may return a promise; FakeClock waits for it before moving on, RealClock ignores it. */
  setTimeout(fn: () => unknown, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export class RealClock implements Clock {
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private nextId = 1;

  now(): number {
    return Date.now();
  }

  setTimeout(fn: () => unknown, delayMs: number): TimerHandle {
    const id = this.nextId++;
    const t = setTimeout(
      () => {
        this.timers.delete(id);
        fn();
      },
      Math.max(0, delayMs),
    );
    this.timers.set(id, t);
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    const t = this.timers.get(handle.id);
    if (t) clearTimeout(t);
    this.timers.delete(handle.id);
  }
}

interface FakeTimer {
  id: number;
  at: number;
  fn: () => unknown;
}

/** Lets pending promise callbacks (and I/O already resolved) run. */
export async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

/**
 * A manual clock: time moves only through `advance`. Timers fire in due order; after each one
 * the promise the callback returned (if any) is awaited, so async work it started has finished.
 */
export class FakeClock implements Clock {
  private timers: FakeTimer[] = [];
  private nextId = 1;

  constructor(private current = 1_700_000_000_000) {}

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => unknown, delayMs: number): TimerHandle {
    const t = { id: this.nextId++, at: this.current + Math.max(0, delayMs), fn };
    this.timers.push(t);
    return { id: t.id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers = this.timers.filter((t) => t.id !== handle.id);
  }

  /** Number of armed timers. */
  get pending(): number {
    return this.timers.length;
  }

  /** When the earliest armed timer fires, if any. */
  nextAt(): number | undefined {
    return this.timers.length ? Math.min(...this.timers.map((t) => t.at)) : undefined;
  }

  /** Moves time forward by `ms`, firing every timer that falls due (including ones armed meanwhile). */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    await settle();
    for (;;) {
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current = Math.max(this.current, due.at);
      // Wait for the async work the timer started (e.g. a whole engine cycle, store I/O included).
      await due.fn();
      await settle();
    }
    this.current = target;
  }
}
