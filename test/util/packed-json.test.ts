import { describe, expect, it } from 'vitest';
import { packRecords, unpackRecords } from '../../src/util/packed-json.js';

const viaJson = (records: unknown[]) => JSON.parse(JSON.stringify(records)) as unknown[];

describe('packed JSON records', () => {
  const records = [
    { user_email: 'a@x.com', active_days: 3, metrics: { total_messages: 5, chat_messages: 0 } },
    { service_account_name: 'ci-bot', active_days: 1, metrics: { total_messages: 2, chat_messages: 1 } },
    { user_email: 'b@x.com', active_days: 2, metrics: { total_messages: 7, chat_messages: 4 } },
    { amount: '12.345678901234567890', tokens: '9007199254740993', tags: ['a', 'b'], none: null, ok: true },
    { group_by_values: { user_info: { user_email: 'c@x.com' }, model: 'm' }, empty: {}, skipped: undefined },
    { weird: 'é \u2028 "quoted" \\ back', n: -0.5, e: 1e21 },
  ];

  it('unpacks to what JSON gives, in order, keys in their order', () => {
    const out = unpackRecords([packRecords(records)]);
    expect(out).toEqual(viaJson(records));
    expect(out.map((r) => Object.keys(r))).toEqual(viaJson(records).map((r) => Object.keys(r as object)));
  });

  it('writes each layout once: records of one layout are much shorter than their JSON', () => {
    const many = Array.from({ length: 500 }, (_, i) => ({
      user_email: `person${i}@example.com`,
      active_days: i % 30,
      metrics: { total_modified_lines_of_code: i, total_messages: 2 * i, completions_suggested_lines_of_code: 3 * i },
    }));
    const packed = packRecords(many);
    expect(packed.length * 2).toBeLessThan(JSON.stringify(many).length);
    expect(packed.match(/completions_suggested_lines_of_code/g)).toHaveLength(1);
    expect(unpackRecords([packed])).toEqual(many);
  });

  it('reads texts of several batches, packed and plain (as older stores hold) mixed, in order', () => {
    const plain = JSON.stringify(records.slice(0, 2)).slice(1, -1);
    const texts = [packRecords(records.slice(2, 4)), plain, packRecords(records.slice(4)), packRecords([])];
    expect(unpackRecords(texts)).toEqual(
      viaJson([...records.slice(2, 4), ...records.slice(0, 2), ...records.slice(4)]),
    );
    expect(unpackRecords([])).toEqual([]);
  });

  it('reads keys that look like code as data', () => {
    const record = { '"}; globalThis.hit = 1; ({"': 1, '\\': { "'`${x}": 2 }, '0': 3 };
    expect(unpackRecords([packRecords([record])])).toEqual([record]);
    expect((globalThis as Record<string, unknown>).hit).toBeUndefined();
  });

  it('keeps a key "__proto__" an own property, as JSON.parse does', () => {
    const text = '{"__proto__": {"polluted": 1}, "a": 1}';
    const record = JSON.parse(text) as Record<string, unknown>;
    const [out] = unpackRecords([packRecords([record])]) as Array<Record<string, unknown>>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out!)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(out)).toBe(JSON.stringify(record));
  });
});
