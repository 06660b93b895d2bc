/** Sorted-key JSON, so equal parameters give equal keys whatever their order; undefined members are left out. */
export function canonicalKey(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalKey).join(',')}]`;
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalKey(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
