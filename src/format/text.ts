/** Compact plain-text rendering: what a model reads, derived from the structured answer. */

export type Cell = string | number | boolean | null | undefined;

/** A pipe table: header line, then one line per row. Empty cells print as "-". */
export function table(columns: string[], rows: Cell[][]): string {
  const line = (cells: Cell[]) =>
    cells.map((c) => (c === null || c === undefined || c === '' ? '-' : String(c))).join(' | ');
  return [line(columns), ...rows.map(line)].join('\n');
}

/** Thousands separators for integers and decimal strings, so 1234567.5 reads as 1,234,567.5 (exact values stay in structured content). */
export function int(n: number | string): string {
  const text = String(n);
  const m = /^(-?\d+)(\.\d+)?$/.exec(text);
  return m ? m[1]!.replace(/\B(?=(\d{3})+(?!\d))/g, ',') + (m[2] ?? '') : text;
}

/** A USD decimal string rounded half-up to cents for reading, e.g. "1234.5678" → "$1,234.57". */
export function usd(decimal: string): string {
  const negative = decimal.startsWith('-');
  const [whole = '0', fraction = ''] = decimal.replace('-', '').split('.');
  let cents = BigInt(whole + fraction.padEnd(2, '0').slice(0, 2));
  if (Number(fraction[2] ?? '0') >= 5) cents += 1n;
  const text = cents.toString().padStart(3, '0');
  return `${negative ? '-' : ''}$${int(text.slice(0, -2))}.${text.slice(-2)}`;
}

/** A share for reading: whole percent, one decimal below 1%. */
export function percent(part: number, whole: number): string {
  if (whole === 0) return '0%';
  const p = (part / whole) * 100;
  return `${p >= 1 ? p.toFixed(0) : p.toFixed(1)}%`;
}

/** A USD decimal string rounded half-up to whole dollars for reading: "8430.50" → "$8,431". */
export function usdWhole(decimal: string): string {
  const negative = decimal.startsWith('-');
  const [whole = '0', fraction = ''] = decimal.replace('-', '').split('.');
  const dollars = BigInt(whole) + (Number(fraction[0] ?? '0') >= 5 ? 1n : 0n);
  return `${negative ? '-' : ''}$${int(dollars.toString())}`;
}

/**
 * When every email of a listing shares one domain, the table shows local parts and says the domain
 * once: shorter for the model, nothing lost.
 */
export function commonDomain(ids: readonly string[]): string | undefined {
  let domain: string | undefined;
  for (const id of ids) {
    const at = id.lastIndexOf('@');
    if (at < 0) continue;
    const d = id.slice(at);
    if (domain === undefined) domain = d;
    else if (domain !== d) return undefined;
  }
  return domain;
}

export function shortId(id: string, domain: string | undefined): string {
  return domain && id.endsWith(domain) ? id.slice(0, -domain.length) : id;
}

/** The most of a caller's value an answer repeats: enough to recognize it, never a megabyte sent back. */
export const ECHO_CHARS = 80;

/** A value as an answer echoes it: cut to ECHO_CHARS characters, with "…" where it was cut. */
export function clip(text: string, max = ECHO_CHARS): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The word for a count: "1 entry", "2 entries". */
export function plural(n: number | bigint, one: string, many = `${one}s`): string {
  return n === 1 || n === 1n ? one : many;
}

/** A duration for reading: "412 ms" under a second, "3.4 s", "95 s", then "5 minutes". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  const minutes = Math.round(ms / 60_000);
  return `${minutes} ${plural(minutes, 'minute')}`;
}

/** Scopes as a sentence names them: "the read scope", "the read and write scopes". */
export function scopesText(scopes: readonly string[]): string {
  if (scopes.length === 0) return 'no scope';
  const list = scopes.length > 1 ? `${scopes.slice(0, -1).join(', ')} and ${scopes.at(-1)}` : scopes[0];
  return `the ${list} ${plural(scopes.length, 'scope')}`;
}

/** A count with its word, for reading: "1 user", "1,204 users". */
export function count(n: number | bigint, one: string, many = `${one}s`): string {
  return `${int(typeof n === 'bigint' ? n.toString() : n)} ${plural(n, one, many)}`;
}
