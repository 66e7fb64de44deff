/**
 * A policy's working space for one run (reused lists, memos), held by its state object but not
 * part of the state: a property JSON and `structuredClone` leave out (a symbol key, not
 * enumerable). A run that goes on with the same state object keeps its space; a copy or a
 * restored state starts a new one. Decisions never depend on it, so `decide` stays a function of
 * its input, without module-level scratch.
 */
const RUN_SPACE = Symbol('run space');

type Holder<R> = { [RUN_SPACE]?: R };

/** The space held by `state`, made by `create` the first time. */
export function runSpaceOf<R>(state: object, create: () => R): R {
  const held = (state as Holder<R>)[RUN_SPACE];
  return held !== undefined ? held : holdRunSpace(state, create());
}

/** Hands `space` to `state` (a policy that returns a new state object keeps its space so). */
export function holdRunSpace<R>(state: object, space: R): R {
  Object.defineProperty(state, RUN_SPACE, { value: space, enumerable: false, writable: true, configurable: true });
  return space;
}
