/** UTC calendar dates as day numbers (days since 1970-01-01), so range arithmetic is plain integers. */
const DAY_MS = 86_400_000;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function dayFromMs(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

export function dayToMs(day: number): number {
  return day * DAY_MS;
}

/** Parses a strict `YYYY-MM-DD` calendar date; returns undefined for anything else (including 2026-02-30). */
export function parseIsoDay(text: string): number | undefined {
  const m = ISO_DATE.exec(text);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  const check = new Date(0);
  check.setUTCFullYear(y, mo - 1, d);
  const ms = check.getTime();
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return undefined;
  return ms / DAY_MS;
}

export function formatDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** 0 = Sunday … 6 = Saturday. */
export function weekday(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

export function dayOfMonth(day: number): number {
  return new Date(day * DAY_MS).getUTCDate();
}

/** The same calendar date `years` earlier; Feb 29 falls back to Feb 28. */
export function minusYears(day: number, years: number): number {
  const d = new Date(day * DAY_MS);
  const y = d.getUTCFullYear() - years;
  const m = d.getUTCMonth();
  const lastOfMonth = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return Date.UTC(y, m, Math.min(d.getUTCDate(), lastOfMonth)) / DAY_MS;
}

/** Inclusive day count of [start, end]. */
export function spanDays(start: number, end: number): number {
  return end - start + 1;
}
