/**
 * JSON with exact big integers: a bigint within 2^53−1 is written as a number, a larger one as a
 * decimal string, which is how the upstream API represents token counts.
 */
export function stringifyWithBigInts(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'bigint') return v;
    return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  });
}
