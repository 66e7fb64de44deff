/**
 * Parses the RM's big list answers (`/nodes`, `/apps`: 19 and 13 MB at 10,000 nodes and apps)
 * in a worker thread, so that the event loop keeps serving the admin API while they are read:
 * one `JSON.parse` of the node list blocked it for 0.2–0.5 s (docs/benchmarks.md, `/healthz`
 * during cycles). The body's chunks are handed over as they arrive; the worker joins, parses and
 * checks them against the schema's compiled form (`describeSchema`: the fields the backend uses,
 * the rest dropped) and sends back only that, so the structured clone the main thread pays for
 * is of the few fields kept. An answer the worker refuses comes back with its bytes: the caller
 * then parses it on its own thread, where zod names the field.
 */
import { Worker } from 'node:worker_threads';
import type { SchemaSpec } from './fast-parse.js';

/**
 * The worker, as plain JavaScript evaluated in the thread (it runs under any loader: tsx,
 * vitest or the compiled dist). `check` gives fast-parse.ts's compiled form for a `SchemaSpec`:
 * test/unit/yarn-list-parser.test.ts holds the two to the same output.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const FAIL = Symbol('fail');
const decoder = new TextDecoder();
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
function arrayOf(v, item) {
  if (!Array.isArray(v)) return FAIL;
  const out = new Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const r = item(v[i]);
    if (r === FAIL) return FAIL;
    out[i] = r;
  }
  return out;
}
function check(spec) {
  switch (spec.k) {
    case 'str': return (v) => (typeof v === 'string' ? v : FAIL);
    case 'bool': return (v) => (typeof v === 'boolean' ? v : FAIL);
    case 'lit': return (v) => (v === spec.v ? v : FAIL);
    case 'num': return (v) => {
      const n = typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)) ? Number(v) : v;
      return typeof n === 'number' && !Number.isNaN(n) ? n : FAIL;
    };
    case 'opt': { const inner = check(spec.inner); return (v) => (v === undefined ? v : inner(v)); }
    case 'null': { const inner = check(spec.inner); return (v) => (v === null ? v : inner(v)); }
    case 'arr': { const item = check(spec.item); return (v) => arrayOf(v, item); }
    case 'list': {
      const item = check(spec.item);
      return (v) => arrayOf(v === null || v === undefined || v === '' ? [] : Array.isArray(v) ? v : [v], item);
    }
    case 'obj': {
      const keys = spec.keys;
      const checks = spec.values.map(check);
      return (v) => {
        if (!isObject(v)) return FAIL;
        const out = {};
        for (let i = 0; i < keys.length; i++) {
          const k = keys[i];
          const r = checks[i](v[k]);
          if (r === FAIL) return FAIL;
          if (r !== undefined || k in v) out[k] = r;
        }
        return out;
      };
    }
  }
  throw new Error('unknown schema kind ' + spec.k);
}
const checks = new Map();
// Per list (reuse key): the items last sent, by id, and that answer's generation.
const lasts = new Map();
function same(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) if (!(k in b) || !same(a[k], b[k])) return false;
  return true;
}
// Items equal to the ones last sent for this list go back as null (the caller still holds them),
// unless the caller's copy is not of the last answer (its generation differs).
function thin(data, reuse) {
  const path = reuse.path;
  let parent = data;
  for (let i = 0; i < path.length - 1 && parent !== null && parent !== undefined; i++) parent = parent[path[i]];
  const list = parent === null || parent === undefined ? undefined : parent[path[path.length - 1]];
  if (!Array.isArray(list)) return undefined;
  const last = lasts.get(reuse.key);
  const usable = last !== undefined && last.generation === reuse.have;
  const byId = new Map();
  const ids = new Array(list.length);
  const out = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const id = item !== null && typeof item === 'object' && typeof item.id === 'string' && !byId.has(item.id) ? item.id : null;
    ids[i] = id;
    if (id !== null) byId.set(id, item);
    const before = usable && id !== null ? last.byId.get(id) : undefined;
    out[i] = before !== undefined && same(before, item) ? null : item;
  }
  const generation = (last === undefined ? 0 : last.generation) + 1;
  lasts.set(reuse.key, { generation, byId });
  parent[path[path.length - 1]] = out;
  return { generation, ids };
}
// Bodies that arrive in chunks, by request id, until their end.
const arriving = new Map();
// The bytes go back with a refusal: the caller parses them again with zod's error messages.
const refuse = (m) => parentPort.postMessage({ id: m.id, ok: false, bytes: m.bytes }, [m.bytes.buffer]);
parentPort.on('message', (m) => {
  if (m.chunk) {
    const parts = arriving.get(m.id);
    if (parts) parts.push(m.chunk);
    else arriving.set(m.id, [m.chunk]);
    return;
  }
  if (m.abort) {
    arriving.delete(m.id);
    return;
  }
  if (m.end) {
    const parts = arriving.get(m.id) ?? [];
    arriving.delete(m.id);
    const joined = Buffer.concat(parts);
    m.bytes = joined.byteLength === joined.buffer.byteLength ? joined : new Uint8Array(joined);
  }
  try {
    let c = checks.get(m.specId);
    if (!c) checks.set(m.specId, (c = check(m.spec)));
    let json;
    try {
      json = JSON.parse(decoder.decode(m.bytes));
    } catch {
      refuse(m);
      return;
    }
    const data = c(json);
    if (data === FAIL) refuse(m);
    else parentPort.postMessage({ id: m.id, ok: true, data, thinned: m.reuse ? thin(data, m.reuse) : undefined });
  } catch {
    refuse(m);
  }
});
`;

/** The checked answer, or a refusal with the bytes back (absent when the worker died with them). */
export type ListParseResult = { readonly ok: true; readonly data: unknown } | { readonly ok: false; readonly bytes?: Uint8Array };

/** A list whose unchanged items need not cross again: where it is in the answer, and its cache key. */
export interface ListReuse {
  /** The request it answers (two reads of the same list share it). */
  readonly key: string;
  /** Keys down to the list, e.g. `['nodes', 'node']`; items are matched by their `id`. */
  readonly path: readonly string[];
}

interface Pending {
  resolve(v: ListParseResult): void;
  readonly reuse?: ListReuse;
  readonly have?: number;
}

interface Thinned {
  readonly generation: number;
  readonly ids: ReadonlyArray<string | null>;
}

/** Bodies smaller than this are parsed where they arrive: handing them over costs more than it saves. */
export const OFF_THREAD_MIN_BYTES = 256 * 1024;

export class ListParser {
  private worker: Worker | undefined;
  private broken = false;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly specIds = new WeakMap<SchemaSpec, number>();
  /** Per reuse key: the items of the last answer, by id, and its generation (as the worker has it). */
  private readonly lastItems = new Map<string, { generation: number; byId: Map<string, unknown> }>();
  private nextSpecId = 1;

  /**
   * The body checked against `spec` (zod's output for it), or a refusal with the bytes. Each
   * chunk is handed over as it arrives (a copy of a few kilobytes), so this thread never holds
   * nor joins the whole body. Throws what the stream throws (the worker drops what it got).
   */
  async parseStream(body: AsyncIterable<Uint8Array>, spec: SchemaSpec, reuse?: ListReuse): Promise<ListParseResult> {
    const worker = this.start();
    if (!worker) {
      const parts: Uint8Array[] = [];
      for await (const chunk of body) parts.push(chunk);
      return { ok: false, bytes: Buffer.concat(parts) };
    }
    let specId = this.specIds.get(spec);
    if (specId === undefined) this.specIds.set(spec, (specId = this.nextSpecId++));
    const id = this.nextId++;
    // Answers checked by different schemas are different lists.
    if (reuse) reuse = { key: `${reuse.key}#${specId}`, path: reuse.path };
    const have = reuse ? (this.lastItems.get(reuse.key)?.generation ?? 0) : undefined;
    const result = new Promise<ListParseResult>((resolve) => {
      this.pending.set(id, { resolve, reuse, have });
      if (this.pending.size === 1) worker.ref();
    });
    try {
      for await (const chunk of body) {
        const copy = new Uint8Array(chunk);
        worker.postMessage({ id, chunk: copy }, [copy.buffer]);
      }
    } catch (err) {
      worker.postMessage({ id, abort: true });
      this.settle(worker, id, { ok: false });
      throw err;
    }
    worker.postMessage({ id, end: true, specId, spec, reuse: reuse ? { key: reuse.key, path: reuse.path, have } : undefined });
    return result;
  }

  private settle(worker: Worker, id: number, r: ListParseResult, thinned?: Thinned): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    if (this.pending.size === 0) worker.unref();
    if (!(r.ok && p.reuse && thinned)) p.resolve(r);
    else if (this.fillIn(r.data, p.reuse, p.have ?? 0, thinned)) p.resolve(r);
    else {
      // Not the answer the worker compared with (cannot happen while both sides agree): the caller reads the list again.
      this.lastItems.delete(p.reuse.key);
      p.resolve({ ok: false });
    }
  }

  /** Puts back the items the worker left out (null: the same as in the last answer); false if it cannot. */
  private fillIn(data: unknown, reuse: ListReuse, have: number, thinned: Thinned): boolean {
    let parent = data as Record<string, unknown>;
    for (const k of reuse.path.slice(0, -1)) parent = parent[k] as Record<string, unknown>;
    const key = reuse.path[reuse.path.length - 1]!;
    const list = parent[key] as unknown[];
    const last = this.lastItems.get(reuse.key);
    const byId = new Map<string, unknown>();
    for (let i = 0; i < list.length; i++) {
      const id = thinned.ids[i];
      if (list[i] === null) {
        // The worker leaves an item out only when our copy is of the answer it compared with.
        if (last?.generation !== have || id === null || id === undefined || !last.byId.has(id)) return false;
        list[i] = last.byId.get(id);
      }
      if (id !== null && id !== undefined) byId.set(id, list[i]);
    }
    this.lastItems.set(reuse.key, { generation: thinned.generation, byId });
    return true;
  }

  /** Stops the thread (a later `parse` starts another). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }

  private start(): Worker | undefined {
    if (this.worker || this.broken) return this.worker;
    let worker: Worker;
    try {
      worker = new Worker(WORKER_SOURCE, { eval: true });
    } catch {
      this.broken = true;
      return undefined;
    }
    // An idle parser never keeps the process alive.
    worker.unref();
    worker.on('message', (m: { id: number; ok: boolean; data?: unknown; bytes?: Uint8Array; thinned?: Thinned }) =>
      this.settle(worker, m.id, m.ok ? { ok: true, data: m.data } : { ok: false, bytes: m.bytes }, m.thinned),
    );
    const fail = (): void => {
      if (this.worker === worker) this.worker = undefined;
      // A new worker knows no earlier answers.
      this.lastItems.clear();
      for (const p of this.pending.values()) p.resolve({ ok: false });
      this.pending.clear();
    };
    worker.on('error', () => {
      this.broken = true;
      fail();
    });
    worker.on('exit', fail);
    this.worker = worker;
    return worker;
  }
}

/** One parser for the process: the RM lists are read one refresh at a time. */
export const sharedListParser = new ListParser();
