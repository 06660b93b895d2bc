/** A big integer as the upstream API writes it: a JSON number up to 2^53−1, a decimal string above. */
export function bigIntToJson(value: bigint): number | string {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= -BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value.toString();
}

/** JSON with exact big integers, written as the upstream API represents token counts (see bigIntToJson). */
export function stringifyWithBigInts(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? bigIntToJson(v) : v));
}
