import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Simulator } from '../../../src/simulator/index.js';

/**
 * A small directory of the simulator's people, for the tests of answers by team: most people in
 * `Eng/Platform`, `Eng/Apps` or `Sales` (by their place in the list), two in `Sales/Field` (a group below
 * the minimum size), one who moves from `Movers/Before` to `Movers/After` on `moveDay`, and a tenth of the
 * people and every service account left out (unassigned). `overlap`: the first person is also in `Sales`.
 */
export function writeOrgFile(
  sim: Simulator,
  dir: string,
  name: string,
  options: { moveDay: string; overlap?: boolean },
): { file: string; mover: string; field: string[]; overlapping: string | undefined; teamOf: Map<string, string> } {
  const users = sim.state.org.identities.filter((i) => i.kind === 'user');
  const people = users.map((i) => i.id);
  const teams = ['Eng/Platform', 'Eng/Apps', 'Sales'];
  const lines = ['user_email,team,cost_center,valid_from,valid_to'];
  // The mover: the most active person, so that both sides of the move have days.
  const moveDay = Date.parse(`${options.moveDay}T00:00:00Z`) / 86_400_000;
  const staying = users.filter((u) => u.leaveDay === Infinity && u.joinDay < moveDay - 90);
  const mover = staying.reduce((a, b) => (b.activity > a.activity ? b : a)).id;
  const field = people.filter((p) => p !== mover).slice(2, 4);
  const before = previousDay(options.moveDay);
  const teamOf = new Map<string, string>();
  people.forEach((email, i) => {
    if (i % 10 === 9) return;
    if (email === mover) {
      lines.push(`${email},Movers/Before,CC-M,,${before}`, `${email},Movers/After,CC-M,${options.moveDay},`);
      return;
    }
    const team = field.includes(email) ? 'Sales/Field' : teams[i % 3]!;
    teamOf.set(email, team);
    lines.push(`${email},${team},CC-${team.split('/')[0]},,`);
  });
  if (options.overlap) lines.push(`${people[0]!},Sales,CC-Sales,,`);
  const file = join(dir, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return { file, mover, field, overlapping: options.overlap ? people[0] : undefined, teamOf };
}

function previousDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
}

interface GroupRow {
  group: string;
  members: number;
  values: Record<string, number | string>;
}

/** A grouped answer's rows summed for one value: exact decimals for strings, integers for numbers. */
export function sumGroups(rows: readonly GroupRow[], key: string): string {
  return exactSum(rows.map((r) => String(r.values[key] ?? 0)));
}

/** Decimal strings summed exactly (BigInt at the most decimals), written without trailing zeros. */
export function exactSum(values: readonly string[]): string {
  const scale = Math.max(0, ...values.map((v) => (v.includes('.') ? v.length - v.indexOf('.') - 1 : 0)));
  const units = values.reduce((n, v) => {
    const [whole = '0', fraction = ''] = v.replace('-', '').split('.');
    const u = BigInt(whole + fraction.padEnd(scale, '0'));
    return n + (v.startsWith('-') ? -u : u);
  }, 0n);
  return same(units, scale);
}

/** A decimal as units and scale, normalised so that equal amounts compare equal: '12.50' and '12.5'. */
function same(units: bigint, scale: number): string {
  const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${units < 0n ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** A decimal string normalised as exactSum writes it. */
export const decimal = (v: string | number) => exactSum([String(v)]);
