/**
 * JSON records packed for storage: each distinct key layout (a shape) is written once, and each record as the
 * array of its values. Tens of thousands of records of one layout (a person's 16 metrics, say) are then a fifth
 * of their JSON size and parse several times faster, since the keys are not read again for every record.
 *
 * A packed text is `[shapes],[k,v,…],[k,v,…],…` (k the index of the record's shape): one array per record, each
 * a JSON value, so texts of several batches join with commas like plain JSON records do. A shape lists the keys
 * in their order: a key, or `[key, shape]` for a nested object, whose values follow in place. Arrays, strings,
 * numbers, booleans and null are stored as they are; keys whose value is undefined are left out, as JSON does.
 */

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

/** Builds a record of one shape from `values` at `at.i`, moving `at.i` past them. */
type Build = (values: unknown[], at: { i: number }) => Record_;

function builder(shape: Shape): Build {
  const keys = shape.map((entry) => (typeof entry === 'string' ? entry : entry[0]));
  const nested = shape.map((entry) => (typeof entry === 'string' ? null : builder(entry[1])));
  // A key "__proto__" assigned would set the prototype; JSON.parse makes it an own property, and so does this.
  const odd = keys.includes('__proto__');
  return (values, at) => {
    const out: Record_ = {};
    for (let j = 0; j < keys.length; j++) {
      const build = nested[j];
      const value = build ? build(values, at) : values[at.i++];
      if (odd) Object.defineProperty(out, keys[j]!, { value, enumerable: true, writable: true, configurable: true });
      else out[keys[j]!] = value;
    }
    return out;
  };
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
        out.push(builds[values[0] as number]!(values, { i: 1 }));
      }
    }
    packed.length = 0;
  };
  for (const text of texts) {
    if (text.startsWith('[')) {
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
