/**
 * Empty lists made in the element kind they will hold (objects; numbers not all small integers),
 * so that code optimised on one run's lists also runs on the next run's (docs/benchmarks.md,
 * "Lists made in the kind they hold").
 */

/** An empty list for objects or strings. */
export function objectList<T>(): T[] {
  const list = [undefined as T];
  list.pop();
  return list;
}

/** An empty list for numbers, fractional ones among them. */
export function numberList(): number[] {
  const list = [0.5];
  list.pop();
  return list;
}
