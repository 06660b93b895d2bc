/**
 * JSON records packed for storage: each distinct key layout (a shape) is written once, and each record as the
 * array of its values. Tens of thousands of records of one layout (a person's 16 metrics, say) are then a fifth
 * of their JSON size and parse several times faster, since the keys are not read again for every record.
 *
 * A packed text is `[shapes],[k,v,…],[k,v,…],…` (k the index of the record's shape): the shapes, then one array
 * per record. Each text stands alone (its records index its own shapes): texts are read as a list, never joined
 * into one. A shape lists the keys in their order: a key, or `[key, shape]` for a nested object, whose values
 * follow in place. Arrays, strings, numbers, booleans and null are stored as they are; keys whose value is
 * undefined are left out, as JSON does.
 */

import { LRUCache } from 'lru-cache';

type Record_ = Record<string, unknown>;
type Shape = Array<string | [string, Shape]>;

const isObject = (v: unknown): v is Record_ => typeof v === 'object' && v !== null && !Array.isArray(v);

function shapeOf(record: Record_, values: unknown[]): Shape {
  const shape: Shape = [];
  for (const key of Object.keys(record)) {
    const v = record[key];
    if (v === undefined) continue;
    if (isObject(v)) shape.push([key, shapeOf(v, values)]);
    else {
      shape.push(key);
      values.push(v);
    }
  }
  return shape;
}

/** Whether a text is packed (an array of shapes first), not plain JSON records joined by commas. */
export const isPacked = (text: string) => text.startsWith('[');

/** The records packed as one text (see above); they unpack equal to `JSON.parse(JSON.stringify(records))`. */
export function packRecords(records: readonly Record_[]): string {
  const shapes: Shape[] = [];
  const index = new Map<string, number>();
  const rows: string[] = [];
  for (const record of records) {
    const values: unknown[] = [];
    const shape = shapeOf(record, values);
    const key = JSON.stringify(shape);
    let k = index.get(key);
    if (k === undefined) {
      k = shapes.length;
      index.set(key, k);
      shapes.push(shape);
    }
    rows.push(JSON.stringify([k, ...values]));
  }
  return [JSON.stringify(shapes), ...rows].join(',');
}

/** Builds a record of one shape from its values (`values[0]` is the shape's index). */
type Build = (values: unknown[]) => Record_;

/** An object literal of the shape, its values read from `v` in order from `at.i`; every key a JSON string literal. */
function literal(shape: Shape, at: { i: number }): string {
  const entries = shape.map((entry) => {
    const key = typeof entry === 'string' ? entry : entry[0];
    // Written `"__proto__": x`, the key would set the prototype; computed, it is an own property, as JSON.parse makes it.
    const name = key === '__proto__' ? `[${JSON.stringify(key)}]` : JSON.stringify(key);
    return `${name}: ${typeof entry === 'string' ? `v[${at.i++}]` : literal(entry[1], at)}`;
  });
  return `{${entries.join(', ')}}`;
}

/**
 * A function per shape, returning an object literal: V8 then makes every record of a shape from one template,
 * several times faster than adding keys one by one. Keys enter the code only as JSON string literals, which
 * cannot end the literal they are in. Shapes are few (one per layout of the API's records); kept by their text.
 */
const builders = new LRUCache<string, Build>({ max: 1000 });

function builder(shape: Shape): Build {
  const key = JSON.stringify(shape);
  let build = builders.get(key);
  if (!build) {
    build = new Function('v', `return ${literal(shape, { i: 1 })};`) as Build;
    builders.set(key, build);
  }
  return build;
}

/**
 * The records of the packed texts, in order. `texts` may mix packed texts and plain ones (JSON records joined
 * by commas, as stores written before packing hold): each text is read as what it starts with.
 */
export function unpackRecords(texts: readonly string[]): Record_[] {
  const out: Record_[] = [];
  const plain: string[] = [];
  const flushPlain = () => {
    if (plain.length === 0) return;
    for (const r of JSON.parse(`[${plain.join(',')}]`) as Record_[]) out.push(r);
    plain.length = 0;
  };
  const packed: string[] = [];
  const flushPacked = () => {
    if (packed.length === 0) return;
    for (const batch of JSON.parse(`[${packed.map((t) => `[${t}]`).join(',')}]`) as unknown[][]) {
      const builds = (batch[0] as Shape[]).map(builder);
      for (let r = 1; r < batch.length; r++) {
        const values = batch[r] as unknown[];
        out.push(builds[values[0] as number]!(values));
      }
    }
    packed.length = 0;
  };
  for (const text of texts) {
    if (isPacked(text)) {
      flushPlain();
      packed.push(text);
    } else {
      flushPacked();
      plain.push(text);
    }
  }
  flushPlain();
  flushPacked();
  return out;
}
