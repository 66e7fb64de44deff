/**
 * Parses the RM's big list answers (`/nodes`, `/apps`: 19 and 13 MB at 10,000 nodes and apps)
 * in a worker thread, so that the event loop keeps serving the admin API while they are read:
 * one `JSON.parse` of the node list blocked it for 0.2–0.5 s (docs/benchmarks.md, `/healthz`
 * during cycles). The body's chunks are copied as they arrive into a receive buffer shared with
 * the worker (kept for later reads: no big allocation per read), and the worker reads the bytes
 * there by the schema's compiled form (`describeSchema`: the fields the backend uses,
 * the rest checked against JSON's grammar and stepped over, never made into objects), or where
 * that reading is unsure, parses them whole and checks them; it sends back only the fields kept,
 * so the structured clone the main thread pays for is of those. In a list read again (the node
 * and app lists at every refresh), an item whose kept fields are byte for byte those of the
 * last answer's item of the same id is that item: it is stepped over, not made again, and not
 * sent (its "print", below). An answer the worker refuses
 * goes back to the caller with a copy of its bytes, parsed then on its own thread, where zod names the field.
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
// A body's leading byte-order mark is not part of its text (readBySpec steps over it too); a
// string's leading U+FEFF is part of the string.
const decoder = new TextDecoder();
const stringDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
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
// Reading the raw bytes by the spec: only what the spec keeps becomes objects, the rest is checked
// against JSON's grammar and stepped over. Anything it is not sure of (a value the check refuses,
// a kept key twice, a spec key Object.prototype has) throws BAIL and the answer goes the way of
// JSON.parse and check, so what it returns is always what they return.
const BAIL = { bail: true };
const bail = () => { throw BAIL; };
let b = Buffer.alloc(0);
let p = 0;
let strStart = 0;
let strEnd = 0;
function ws() {
  let c = b[p];
  while (c === 32 || c === 10 || c === 13 || c === 9) c = b[++p];
  return c;
}
const isHex = (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
// 1 for a byte a string holds as it is; a quote, a backslash and control bytes (refused) end a run.
const PLAIN = new Uint8Array(256).fill(1, 32);
PLAIN[34] = PLAIN[92] = 0;
// At a quote: steps over the string (its content at strStart..strEnd); true when it has escapes.
function skipString() {
  let q = p + 1;
  let escaped = false;
  for (;;) {
    while (PLAIN[b[q]] === 1) q++;
    const c = b[q];
    if (c === 34) break;
    if (c !== 92) bail();
    escaped = true;
    const e = b[q + 1];
    if (e === 117) {
      if (!(isHex(b[q + 2]) && isHex(b[q + 3]) && isHex(b[q + 4]) && isHex(b[q + 5]))) bail();
      q += 6;
    } else if (e === 34 || e === 92 || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116) q += 2;
    else bail();
  }
  strStart = p + 1;
  strEnd = q;
  p = q + 1;
  return escaped;
}
function readString() {
  if (skipString()) return JSON.parse(stringDecoder.decode(b.subarray(strStart - 1, strEnd + 1)));
  for (let i = strStart; i < strEnd; i++) if (b[i] >= 128) return stringDecoder.decode(b.subarray(strStart, strEnd));
  return b.latin1Slice(strStart, strEnd);
}
function readNumber() {
  const start = p;
  let c = b[p];
  const negative = c === 45;
  if (negative) c = b[++p];
  let v = 0;
  let digits = 0;
  if (c === 48) {
    c = b[++p];
    digits = 1;
  } else if (c >= 49 && c <= 57) {
    do {
      v = v * 10 + (c - 48);
      digits++;
      c = b[++p];
    } while (c >= 48 && c <= 57);
  } else bail();
  let integer = true;
  if (c === 46) {
    integer = false;
    c = b[++p];
    if (!(c >= 48 && c <= 57)) bail();
    do c = b[++p];
    while (c >= 48 && c <= 57);
  }
  if (c === 101 || c === 69) {
    integer = false;
    c = b[++p];
    if (c === 43 || c === 45) c = b[++p];
    if (!(c >= 48 && c <= 57)) bail();
    do c = b[++p];
    while (c >= 48 && c <= 57);
  }
  if (integer && digits <= 15) return negative ? -v : v;
  return Number(b.latin1Slice(start, p));
}
function word(text, value) {
  for (let i = 0; i < text.length; i++) if (b[p + i] !== text.charCodeAt(i)) bail();
  p += text.length;
  return value;
}
function readPrimitive(c) {
  if (c === 34) return readString();
  if (c === 45 || (c >= 48 && c <= 57)) return readNumber();
  if (c === 116) return word('true', true);
  if (c === 102) return word('false', false);
  if (c === 110) return word('null', null);
  return bail();
}
// Steps over a value, its grammar checked, making nothing of it: one loop, the objects and arrays
// it is inside on a stack (deeper than the stack: BAIL, and JSON.parse decides).
const OPEN = new Uint8Array(1024);
function skipValue() {
  let depth = 0;
  let c = ws();
  for (;;) {
    // A value starts here (c: its first byte).
    if (c === 123) {
      p++;
      c = ws();
      if (c === 125) p++;
      else {
        if (depth === OPEN.length || c !== 34) bail();
        OPEN[depth++] = 123;
        skipString();
        if (ws() !== 58) bail();
        p++;
        c = ws();
        continue;
      }
    } else if (c === 91) {
      p++;
      c = ws();
      if (c === 93) p++;
      else {
        if (depth === OPEN.length) bail();
        OPEN[depth++] = 91;
        continue;
      }
    } else if (c === 34) skipString();
    else if (c === 45 || (c >= 48 && c <= 57)) skipNumber();
    else readPrimitive(c);
    // After a value: what it ends, or the next value of the object or array it is in.
    for (;;) {
      if (depth === 0) return;
      c = ws();
      const inObject = OPEN[depth - 1] === 123;
      if (c === 44) {
        p++;
        c = ws();
        if (inObject) {
          if (c !== 34) bail();
          skipString();
          if (ws() !== 58) bail();
          p++;
          c = ws();
        }
        break;
      }
      if (c !== (inObject ? 125 : 93)) bail();
      p++;
      depth--;
    }
  }
}
// Steps over a number, checking its grammar as readNumber does, without making it.
function skipNumber() {
  let c = b[p];
  if (c === 45) c = b[++p];
  if (c === 48) c = b[++p];
  else if (c >= 49 && c <= 57) {
    do c = b[++p];
    while (c >= 48 && c <= 57);
  } else bail();
  if (c === 46) {
    c = b[++p];
    if (!(c >= 48 && c <= 57)) bail();
    do c = b[++p];
    while (c >= 48 && c <= 57);
  }
  if (c === 101 || c === 69) {
    c = b[++p];
    if (c === 43 || c === 45) c = b[++p];
    if (!(c >= 48 && c <= 57)) bail();
    do c = b[++p];
    while (c >= 48 && c <= 57);
  }
}
// Items of an array, each read by \`item\`, at its opening bracket.
function readItems(item) {
  p++;
  const out = [];
  if (ws() === 93) {
    p++;
    return out;
  }
  for (;;) {
    out.push(item(ws()));
    const d = ws();
    p++;
    if (d === 93) return out;
    if (d !== 44) bail();
  }
}
// A reader per spec: given the value's first byte, its checked value (what check gives for it) or BAIL.
// \`path\` leads to the list whose items are matched with the last answer's (\`readItemsReusing\`).
function reader(spec, path) {
  const leaf = check(spec);
  const onPrimitive = (c) => {
    const r = leaf(readPrimitive(c));
    return r === FAIL ? bail() : r;
  };
  switch (spec.k) {
    case 'str': case 'bool': case 'num': case 'lit':
      return (c) => (c === 123 || c === 91 ? bail() : onPrimitive(c));
    case 'opt': case 'null': {
      const inner = reader(spec.inner, path);
      return (c) => (c === 123 || c === 91 ? inner(c) : onPrimitive(c));
    }
    case 'arr': case 'list': {
      const item = reader(spec.item);
      const atList = path !== undefined && path.length === 0;
      const print = atList ? printer(spec.item, true) : undefined;
      const items = atList ? (c) => readItemsReusing(item, print) : (c) => readItems(item);
      if (spec.k === 'arr') return (c) => (c === 91 ? items(c) : c === 123 ? bail() : onPrimitive(c));
      return (c) => (c === 91 ? items(c) : c === 123 ? [item(c)] : onPrimitive(c));
    }
    case 'obj': {
      const keys = spec.keys;
      const n = keys.length;
      const checks = spec.values.map(check);
      const readers = spec.values.map((v, i) => reader(v, path !== undefined && path.length > 0 && keys[i] === path[0] ? path.slice(1) : undefined));
      if (keys.some((k) => k in Object.prototype)) return () => bail();
      const find = keyFinder(keys);
      return (c) => {
        if (c !== 123) return c === 91 ? bail() : onPrimitive(c);
        p++;
        const values = new Array(n);
        // Keys seen: one bit each (a spec has fewer than 31 keys; more go by a list).
        let seenBits = 0;
        const seen = n > 30 ? new Array(n).fill(false) : undefined;
        if (ws() === 125) p++;
        else {
          for (;;) {
            if (b[p] !== 34) bail();
            const i = find(skipString());
            if (ws() !== 58) bail();
            p++;
            if (i < 0) skipValue();
            else {
              if (seen === undefined) {
                if (seenBits & (1 << i)) bail();
                seenBits |= 1 << i;
              } else {
                if (seen[i]) bail();
                seen[i] = true;
              }
              values[i] = readers[i](ws());
            }
            const d = ws();
            p++;
            if (d === 125) break;
            if (d !== 44) bail();
            ws();
          }
        }
        const out = {};
        for (let i = 0; i < n; i++) {
          if (seen === undefined ? seenBits & (1 << i) : seen[i]) out[keys[i]] = values[i];
          else {
            const r = checks[i](undefined);
            if (r === FAIL) bail();
            if (r !== undefined) out[keys[i]] = r;
          }
        }
        return out;
      };
    }
  }
  throw new Error('unknown schema kind ' + spec.k);
}
// The spec key at the string just stepped over (strStart..strEnd; \`escaped\` as skipString said), or -1.
function keyFinder(keys) {
  const index = new Map(keys.map((k, i) => [k, i]));
  // ASCII keys by their length, matched on the bytes: [index, codes, index, codes, …].
  const byLength = [];
  keys.forEach((k, i) => {
    const codes = Array.from(k, (ch) => ch.charCodeAt(0));
    // Others (a quote, a backslash, past ASCII) are found by their decoded text.
    if (codes.every((code) => code >= 32 && code < 127 && code !== 34 && code !== 92)) (byLength[k.length] ??= []).push(i, codes);
  });
  return (escaped) => {
    if (escaped) return index.get(JSON.parse(stringDecoder.decode(b.subarray(strStart - 1, strEnd + 1)))) ?? -1;
    const candidates = byLength[strEnd - strStart];
    if (candidates === undefined) return -1;
    for (let k = 0; k < candidates.length; k += 2) {
      const codes = candidates[k + 1];
      let j = 0;
      while (j < codes.length && b[strStart + j] === codes[j]) j++;
      if (j === codes.length) return candidates[k];
    }
    return -1;
  };
}
// An item's print: what its reader would read of it (the kept keys, in their order, and their
// values' bytes) and nothing of the rest, written so that no two readings give the same bytes
// (markers, lengths). Two items with the same print read to the same value; an item whose print
// is that of an item of the last answer is that item again, and is not read (nor made) twice.
// Markers: a kept key is its index (< KEY_LIMIT).
const KEY_LIMIT = 240;
const OBJECT = 250;
const ARRAY = 251;
const RAW = 253;
const END = 255;
let prints = new Uint8Array(1 << 16);
let printed = 0;
// The top item's id string (idStart..idEnd), -1 when it has none read plainly.
let idStart = -1;
let idEnd = -1;
function room(n) {
  if (printed + n <= prints.length) return;
  const larger = new Uint8Array(Math.max(2 * prints.length, printed + n));
  larger.set(prints.subarray(0, printed));
  prints = larger;
}
function printMark(m) {
  room(1);
  prints[printed++] = m;
}
// The bytes of a value, as they are: a marker, their length, then them.
function printRaw(start, end) {
  const n = end - start;
  room(n + 5);
  prints[printed++] = RAW;
  prints[printed++] = n & 255;
  prints[printed++] = (n >>> 8) & 255;
  prints[printed++] = (n >>> 16) & 255;
  prints[printed++] = n >>> 24;
  for (let i = start; i < end; i++) prints[printed++] = b[i];
}
function printValue() {
  const start = p;
  skipValue();
  printRaw(start, p);
}
// A printer per spec (\`top\`: the list's item, whose id it notes), given the value's first byte.
function printer(spec, top) {
  switch (spec.k) {
    case 'opt': case 'null': {
      const inner = printer(spec.inner, top);
      return (c) => (c === 123 || c === 91 ? inner(c) : printValue());
    }
    case 'arr': case 'list': {
      const item = printer(spec.item, false);
      return (c) => {
        if (c !== 91) return printValue();
        printMark(ARRAY);
        p++;
        if (ws() === 93) p++;
        else
          for (;;) {
            item(ws());
            const d = ws();
            p++;
            if (d === 93) break;
            if (d !== 44) bail();
          }
        printMark(END);
      };
    }
    case 'obj': {
      const keys = spec.keys;
      if (keys.length >= KEY_LIMIT || keys.some((k) => k in Object.prototype)) return () => bail();
      const find = keyFinder(keys);
      const values = spec.values.map((v) => printer(v, false));
      const idAt = top ? keys.indexOf('id') : -1;
      return (c) => {
        if (c !== 123) return printValue();
        printMark(OBJECT);
        p++;
        if (ws() === 125) p++;
        else
          for (;;) {
            if (b[p] !== 34) bail();
            const i = find(skipString());
            if (ws() !== 58) bail();
            p++;
            const v = ws();
            if (i < 0) skipValue();
            else {
              printMark(i);
              if (i === idAt && v === 34) {
                const start = p;
                const escaped = skipString();
                if (!escaped) {
                  idStart = strStart;
                  idEnd = strEnd;
                }
                printRaw(start, p);
              } else values[i](v);
            }
            const d = ws();
            p++;
            if (d === 125) break;
            if (d !== 44) bail();
            ws();
          }
        printMark(END);
      };
    }
    default:
      return () => printValue();
  }
}
const samePrint = (a, aStart, aEnd, bStart, bEnd) => {
  if (aEnd - aStart !== bEnd - bStart) return false;
  for (let i = 0; i < aEnd - aStart; i++) if (a[aStart + i] !== prints[bStart + i]) return false;
  return true;
};
// The list being read with the last answer's items at hand (set per answer; see readBySpec).
let reading;
// The reused list's items, each printed first: an item printed as one of the last answer (same id)
// is that item (left out of the answer when the caller has it); the others are read.
function readItemsReusing(item, print) {
  const r = reading;
  const last = r === undefined ? undefined : r.last;
  // A first answer is only read, and \`thin\` notes its items (the first read is the one a cold
  // start waits for); the next prints its items, and the ones after that read only what changed.
  if (last === undefined || r.done) return readItems(item);
  p++;
  const out = [];
  const items = [];
  const from = [];
  const at = new Map();
  const starts = [];
  printed = 0;
  if (ws() === 93) p++;
  else
    for (;;) {
      const c = ws();
      const s = p;
      const printStart = printed;
      idStart = -1;
      print(c);
      let id = idStart < 0 ? null : b.latin1Slice(idStart, idEnd);
      if (id !== null) for (let k = idStart; k < idEnd; k++) if (b[k] >= 128) { id = stringDecoder.decode(b.subarray(idStart, idEnd)); break; }
      if (id !== null && at.has(id)) id = null;
      if (id !== null) at.set(id, items.length);
      const j = id !== null ? last.at.get(id) : undefined;
      let value;
      let same = false;
      if (j !== undefined && last.prints !== undefined && samePrint(last.prints, last.starts[j], last.starts[j + 1], printStart, printed)) {
        value = last.items[j];
        same = true;
        r.itemsKept++;
      } else {
        const end = p;
        p = s;
        value = item(c);
        if (p !== end) bail();
        if (j !== undefined && sameValue(last.items[j], value)) {
          value = last.items[j];
          same = true;
        }
      }
      starts.push(printStart);
      items.push(value);
      const left = same && r.usable;
      out.push(left ? null : value);
      from.push(left ? j : -1);
      const d = ws();
      p++;
      if (d === 93) break;
      if (d !== 44) bail();
    }
  starts.push(printed);
  r.done = { items, from, at, prints: prints.slice(0, printed), starts };
  return out;
}
const readers = new Map();
// The bytes read by the spec, or BAIL (thrown) where JSON.parse and check decide.
function readBySpec(bytes, read) {
  b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  p = b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  try {
    const data = read(ws());
    if (ws() !== undefined) bail();
    return data;
  } finally {
    b = Buffer.alloc(0);
  }
}
// Per list (reuse key): the last answer's items, their positions by id, their prints (absent for
// a list parsed whole, or read first) and the answer's generation.
const lasts = new Map();
function sameValue(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) if (!(k in b) || !sameValue(a[k], b[k])) return false;
  return true;
}
// Items equal to ones of the last answer go back as null with that item's position in it
// (\`from\`, -1 for the items sent), unless the caller's copy is not of the last answer.
function thin(data, reuse) {
  const path = reuse.path;
  let parent = data;
  for (let i = 0; i < path.length - 1 && parent !== null && parent !== undefined; i++) parent = parent[path[i]];
  const list = parent === null || parent === undefined ? undefined : parent[path[path.length - 1]];
  if (!Array.isArray(list)) return undefined;
  const last = lasts.get(reuse.key);
  const usable = last !== undefined && last.generation === reuse.have;
  const at = new Map();
  const from = new Int32Array(list.length).fill(-1);
  const out = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const id = item !== null && typeof item === 'object' && typeof item.id === 'string' && !at.has(item.id) ? item.id : null;
    if (id !== null) at.set(id, i);
    const j = usable && id !== null ? last.at.get(id) : undefined;
    if (j !== undefined && sameValue(last.items[j], item)) {
      out[i] = null;
      from[i] = j;
    } else out[i] = item;
  }
  const generation = (last === undefined ? 0 : last.generation) + 1;
  lasts.set(reuse.key, { generation, at, items: list });
  parent[path[path.length - 1]] = out;
  return { generation, from };
}
// The body is in a receive buffer shared with the caller (its first \`length\` bytes), read in place:
// no copy, and nothing of it is kept once answered. A refusal sends no bytes back: the caller has them.
const refuse = (m) => parentPort.postMessage({ id: m.id, ok: false });
parentPort.on('message', (m) => {
  m.bytes = new Uint8Array(m.buffer, 0, m.length);
  try {
    let c = checks.get(m.specId);
    if (!c) checks.set(m.specId, (c = check(m.spec)));
    // Answers with a reused list are read by a reader that knows where the list is.
    const readerKey = m.reuse ? m.specId + '\u0000' + m.reuse.path.join('\u0000') : m.specId;
    let read = readers.get(readerKey);
    if (!read) readers.set(readerKey, (read = reader(m.spec, m.reuse ? m.reuse.path : undefined)));
    let data = FAIL;
    let scanned = true;
    const last = m.reuse ? lasts.get(m.reuse.key) : undefined;
    reading = m.reuse ? { last, usable: last !== undefined && last.generation === m.reuse.have, done: undefined, itemsKept: 0 } : undefined;
    try {
      data = readBySpec(m.bytes, read);
    } catch {
      scanned = false;
    }
    const listRead = scanned && reading !== undefined ? reading.done : undefined;
    const itemsKept = listRead !== undefined ? reading.itemsKept : 0;
    reading = undefined;
    if (listRead !== undefined) {
      // Read with the last answer at hand: what thin would find is known already.
      const generation = (last === undefined ? 0 : last.generation) + 1;
      lasts.set(m.reuse.key, { generation, at: listRead.at, items: listRead.items, prints: listRead.prints, starts: listRead.starts });
      parentPort.postMessage({ id: m.id, ok: true, scanned, itemsKept, data, thinned: { generation, from: Int32Array.from(listRead.from) } });
      return;
    }
    if (!scanned) {
      let json;
      try {
        json = JSON.parse(decoder.decode(m.bytes));
      } catch {
        refuse(m);
        return;
      }
      data = c(json);
    }
    if (data === FAIL) refuse(m);
    else parentPort.postMessage({ id: m.id, ok: true, scanned, data, thinned: m.reuse ? thin(data, m.reuse) : undefined });
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
  /** The receive buffer the body is in, and its length: the caller's again once answered. */
  readonly buffer: SharedArrayBuffer;
  readonly length: number;
}

interface Thinned {
  readonly generation: number;
  /** Per item: its position in the last answer when left out (null), else -1. */
  readonly from: Int32Array;
}

/** Bodies smaller than this are parsed where they arrive: handing them over costs more than it saves. */
export const OFF_THREAD_MIN_BYTES = 256 * 1024;

/** Receive buffers are made in steps of this size (a list a little longer than the last fits the same buffer). */
const BUFFER_STEP_BYTES = 4 << 20;

/**
 * A receive buffer too small for a body grows by this factor (at least), in whole steps: by
 * doubling, a 19 MB node list ended in a 32 MB buffer, kept for the next reads.
 */
const BUFFER_GROWTH = 1.25;

/** A list read again is expected at its last length times this (the RM's lists carry no length). */
const LENGTH_SLACK = 1.0625;

/** Free receive buffers kept for the next reads: the node and app lists are read at once, and a few more. */
const FREE_BUFFERS_KEPT = 4;

/**
 * The worker's heap limits. Left to V8's defaults it grew by the items of each answer (new
 * objects, the last answer's garbage) to ~100 MB over five refreshes at 10,000 nodes, for ~25 MB
 * live; the peak RSS counts it (docs/benchmarks.md). A worker that runs out of memory is started
 * again with twice the old-generation limit, up to the last; the read it held is made again.
 */
export const WORKER_OLD_GENERATION_MB = 64;
const WORKER_MAX_OLD_GENERATION_MB = 4_096;
const WORKER_YOUNG_GENERATION_MB = 8;

export interface ListParserOptions {
  /** The worker's old-generation limit to start with (default WORKER_OLD_GENERATION_MB). */
  readonly oldGenerationMB?: number;
}

export class ListParser {
  private worker: Worker | undefined;
  private broken = false;
  private oldGenerationMB: number;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly specIds = new WeakMap<SchemaSpec, number>();
  /**
   * Per reuse key: the items of the last answer in its order, and its generation (as the worker
   * has it). The worker names a left-out item by its position there: no map by id to make again
   * at every answer, no ids to send over.
   */
  private readonly lastItems = new Map<string, { generation: number; items: readonly unknown[] }>();
  private nextSpecId = 1;
  /**
   * Receive buffers no read holds, shared with the worker. A body is copied into one as it
   * arrives and read there in place; the buffer then serves a later read. Bodies of 13–19 MB
   * allocated and freed at every refresh (pieces here, joined there) left the process's memory
   * fragmented: its RSS grew by ~100 MB over a few refreshes beyond the heaps (docs/benchmarks.md).
   */
  private readonly freeBuffers: SharedArrayBuffer[] = [];
  /** Per reuse key, the length of the last answer (`LENGTH_SLACK`). */
  private readonly lastLengths = new Map<string, number>();
  /** Busy time of the workers that ended (`busyMs`). */
  private busyMsOfEnded = 0;
  /**
   * Answers accepted: read from the bytes by the spec, or parsed whole and checked (the way taken
   * when the first is unsure); and items of reused lists found unchanged by their print alone.
   */
  readonly answersRead = { fromBytes: 0, parsedWhole: 0, itemsKeptByPrint: 0 };

  constructor(opts: ListParserOptions = {}) {
    this.oldGenerationMB = opts.oldGenerationMB ?? WORKER_OLD_GENERATION_MB;
  }

  /** Time the parsing thread has spent working (its event loop busy), over every worker it started, ms. */
  busyMs(): number {
    return this.busyMsOfEnded + (this.worker?.performance.eventLoopUtilization().active ?? 0);
  }

  /** The worker's old-generation limit now (raised each time a worker ran out of memory). */
  get workerOldGenerationMB(): number {
    return this.oldGenerationMB;
  }

  /**
   * The body checked against `spec` (zod's output for it), or a refusal with the bytes. The
   * chunks are copied as they arrive into a receive buffer the worker reads in place (sized by
   * `expectedBytes` when the length is known). Throws what the stream throws.
   */
  async parseStream(body: AsyncIterable<Uint8Array>, spec: SchemaSpec, reuse?: ListReuse, expectedBytes?: number): Promise<ListParseResult> {
    const worker = this.start();
    if (!worker) {
      const parts: Uint8Array[] = [];
      for await (const chunk of body) parts.push(chunk);
      return { ok: false, bytes: Buffer.concat(parts) };
    }
    let specId = this.specIds.get(spec);
    if (specId === undefined) this.specIds.set(spec, (specId = this.nextSpecId++));
    // Answers checked by different schemas are different lists.
    if (reuse) reuse = { key: `${reuse.key}#${specId}`, path: reuse.path };
    // The RM sends its lists chunked, without a length: a list read again is expected at its last length and a little more.
    const lastLength = reuse ? this.lastLengths.get(reuse.key) : undefined;
    let buffer = this.takeBuffer(expectedBytes ?? (lastLength !== undefined ? Math.ceil(lastLength * LENGTH_SLACK) : 0));
    let view = new Uint8Array(buffer);
    let length = 0;
    try {
      for await (const chunk of body) {
        const bytes = chunk as Uint8Array;
        if (length + bytes.byteLength > buffer.byteLength) {
          const larger = new SharedArrayBuffer(bufferSize(Math.max(length + bytes.byteLength, Math.ceil(buffer.byteLength * BUFFER_GROWTH))));
          const largerView = new Uint8Array(larger);
          largerView.set(view.subarray(0, length));
          buffer = larger;
          view = largerView;
        }
        view.set(bytes, length);
        length += bytes.byteLength;
      }
    } catch (err) {
      this.releaseBuffer(buffer);
      throw err;
    }
    if (reuse) this.lastLengths.set(reuse.key, length);
    const id = this.nextId++;
    const have = reuse ? (this.lastItems.get(reuse.key)?.generation ?? 0) : undefined;
    const result = new Promise<ListParseResult>((resolve) => {
      this.pending.set(id, { resolve, reuse, have, buffer, length });
      if (this.pending.size === 1) worker.ref();
    });
    worker.postMessage({ id, buffer, length, specId, spec, reuse: reuse ? { key: reuse.key, path: reuse.path, have } : undefined });
    return result;
  }

  /** The smallest free receive buffer of at least `minBytes` (the largest when the length is unknown), or a new one. */
  private takeBuffer(minBytes: number): SharedArrayBuffer {
    let fit = -1;
    let largest = -1;
    this.freeBuffers.forEach((buffer, i) => {
      if (buffer.byteLength >= minBytes && (fit < 0 || buffer.byteLength < this.freeBuffers[fit]!.byteLength)) fit = i;
      if (largest < 0 || buffer.byteLength > this.freeBuffers[largest]!.byteLength) largest = i;
    });
    const pick = minBytes > 0 ? fit : largest;
    return pick >= 0 ? this.freeBuffers.splice(pick, 1)[0]! : new SharedArrayBuffer(bufferSize(minBytes));
  }

  private releaseBuffer(buffer: SharedArrayBuffer): void {
    this.freeBuffers.push(buffer);
    if (this.freeBuffers.length <= FREE_BUFFERS_KEPT) return;
    // The smallest goes: the big lists need the big ones.
    let smallest = 0;
    for (let i = 1; i < this.freeBuffers.length; i++) if (this.freeBuffers[i]!.byteLength < this.freeBuffers[smallest]!.byteLength) smallest = i;
    this.freeBuffers.splice(smallest, 1);
  }

  /** Hands the answer to its caller and the receive buffer back (with a refusal, a copy of the bytes when `withBytes`). */
  private settle(worker: Worker, id: number, r: { ok: true; data: unknown } | { ok: false; withBytes: boolean }, thinned?: Thinned): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    if (this.pending.size === 0) worker.unref();
    if (!r.ok) {
      const bytes = r.withBytes ? Buffer.from(new Uint8Array(p.buffer, 0, p.length)) : undefined;
      this.releaseBuffer(p.buffer);
      p.resolve(bytes ? { ok: false, bytes } : { ok: false });
      return;
    }
    this.releaseBuffer(p.buffer);
    if (!(p.reuse && thinned)) p.resolve(r);
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
    if (thinned.from.length !== list.length) return false;
    for (let i = 0; i < list.length; i++) {
      if (list[i] !== null) continue;
      // The worker leaves an item out only when our copy is of the answer it compared with.
      const j = thinned.from[i]!;
      if (last?.generation !== have || j < 0 || j >= last.items.length) return false;
      list[i] = last.items[j];
    }
    // A copy: the caller may change the list it is given.
    this.lastItems.set(reuse.key, { generation: thinned.generation, items: list.slice() });
    return true;
  }

  /** Stops the thread (a later `parse` starts another). */
  async close(): Promise<void> {
    const w = this.worker;
    if (w) this.busyMsOfEnded += w.performance.eventLoopUtilization().active;
    this.worker = undefined;
    if (w) await w.terminate();
  }

  private start(): Worker | undefined {
    if (this.worker || this.broken) return this.worker;
    let worker: Worker;
    try {
      worker = new Worker(WORKER_SOURCE, {
        eval: true,
        resourceLimits: { maxOldGenerationSizeMb: this.oldGenerationMB, maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
      });
    } catch {
      this.broken = true;
      return undefined;
    }
    // An idle parser never keeps the process alive.
    worker.unref();
    worker.on('message', (m: { id: number; ok: boolean; scanned?: boolean; itemsKept?: number; data?: unknown; thinned?: Thinned }) => {
      if (m.ok) this.answersRead[m.scanned ? 'fromBytes' : 'parsedWhole']++;
      if (m.itemsKept) this.answersRead.itemsKeptByPrint += m.itemsKept;
      this.settle(worker, m.id, m.ok ? { ok: true, data: m.data } : { ok: false, withBytes: true }, m.thinned);
    });
    const fail = (): void => {
      if (this.worker === worker) {
        this.busyMsOfEnded += worker.performance.eventLoopUtilization().active;
        this.worker = undefined;
      }
      // A new worker knows no earlier answers.
      this.lastItems.clear();
      for (const id of [...this.pending.keys()]) this.settle(worker, id, { ok: false, withBytes: false });
    };
    worker.on('error', (err: Error & { code?: string }) => {
      // Out of memory: a larger cluster than the limit was made for; the next read starts one with more.
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY' && this.oldGenerationMB < WORKER_MAX_OLD_GENERATION_MB) this.oldGenerationMB *= 2;
      else this.broken = true;
      fail();
    });
    worker.on('exit', fail);
    this.worker = worker;
    return worker;
  }
}

/** A receive buffer's size for `bytes`: rounded up to a whole step. */
function bufferSize(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / BUFFER_STEP_BYTES)) * BUFFER_STEP_BYTES;
}

/** One parser for the process: the RM lists are read one refresh at a time. */
export const sharedListParser = new ListParser();
