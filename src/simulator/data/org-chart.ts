import { formatDay } from '../../util/utc-date.js';
import { Rng, mix32 } from '../random.js';
import { isMember, type Organization } from './organization.js';

/**
 * The organization's chart, as an HR export gives it (issue 34): a team tree about four levels deep with teams of 2
 * to 300, a cost center per area, managers and locations; a few people in two teams, a few in none, some who moved
 * in the last 60 days (dated rows), and leavers whose rows end the day before they left. Drawn from the seed, so
 * the same organization always has the same chart.
 */

export interface ChartRow {
  user_email?: string;
  service_account_name?: string;
  team: string;
  cost_center: string;
  manager: string;
  location: string;
  primary?: boolean;
  valid_from?: string;
  valid_to?: string;
}

export interface OrgChart {
  /** The teams people are placed in (leaves of the tree), by full path. */
  teams: string[];
  rows: ChartRow[];
}

const DIVISIONS = ['Engineering', 'Sales', 'Marketing', 'Operations', 'Finance', 'People'];
const DIVISION_WEIGHTS = [8, 4, 2, 2, 1, 1];
const AREAS = [
  'Platform',
  'Product',
  'Growth',
  'Core',
  'Data',
  'Infra',
  'Mobile',
  'Web',
  'Security',
  'Tools',
  'Research',
  'Support',
];
const GROUPS = [
  'Atlas',
  'Beacon',
  'Comet',
  'Delta',
  'Ember',
  'Falcon',
  'Granite',
  'Harbor',
  'Iris',
  'Juniper',
  'Kite',
  'Lumen',
  'Meridian',
  'Nova',
  'Orbit',
  'Pulse',
];
const LOCATIONS = ['Berlin', 'London', 'New York', 'San Francisco', 'Bangalore', 'Remote'];

export interface ChartOptions {
  /** Levels of the tree (default 4). */
  levels?: number;
  /** Average people per team (default 25; 50,000 people in about 2,000 teams). */
  perTeam?: number;
}

function teamPath(rng: Rng, levels: number): string {
  const parts = [DIVISIONS[rng.weighted(DIVISION_WEIGHTS)]!, rng.pick(AREAS), rng.pick(GROUPS)];
  for (let level = 4; level <= levels; level++) parts.push(`${level === 4 ? 'Squad' : 'Pod'} ${1 + rng.int(8)}`);
  return parts.slice(0, levels).join('/');
}

/** A cost center per area (the first two levels), stable for the path. */
function costCenter(path: string): string {
  const area = path.split('/').slice(0, 2).join('/');
  let h = 0;
  for (let i = 0; i < area.length; i++) h = mix32(h ^ area.charCodeAt(i));
  return `CC-${1000 + (h % 9000)}`;
}

/** Team sizes skewed like real ones: many small teams, a few large, between 2 and 300. */
const teamSize = (rng: Rng, mean: number) =>
  Math.max(2, Math.min(300, Math.round(2 + (mean - 2) * -Math.log(Math.max(rng.next(), 1e-9)))));

export function generateOrgChart(org: Organization, options: ChartOptions = {}): OrgChart {
  const rng = new Rng(mix32(org.seed ^ 0x0c4a27));
  const levels = options.levels ?? 4;
  const mean = options.perTeam ?? 25;
  const day = (d: number) => formatDay(d);
  const people = org.identities.filter((i) => i.kind === 'user' && i.joinDay <= org.anchorDay);
  const placed: Array<{ email: string; team: string }> = [];
  const teams: string[] = [];
  const managers = new Map<string, string>();
  for (let i = 0; i < people.length;) {
    const team = teamPath(rng, levels);
    if (!managers.has(team)) teams.push(team);
    for (const end = i + teamSize(rng, mean); i < end && i < people.length; i++) {
      const email = people[i]!.id;
      if (!managers.has(team)) managers.set(team, email);
      placed.push({ email, team });
    }
  }
  const rows: ChartRow[] = [];
  const base = (team: string, email: string) => ({
    team,
    cost_center: costCenter(team),
    manager: managers.get(team) === email ? '' : managers.get(team)!,
  });
  for (const [n, { email, team }] of placed.entries()) {
    const person = people[n]!;
    const r = rng.next();
    if (r < 0.02) continue; // in no team: the directory does not know them
    const shown = r > 0.995 ? email.toUpperCase() : email; // an export that spells some emails otherwise
    const location = rng.pick(LOCATIONS);
    const left = isMember(person, org.anchorDay) ? undefined : day(person.leaveDay - 1);
    const other = teams[rng.int(teams.length)]!;
    if (r < 0.05 && other !== team && left === undefined) {
      // moved in the last 60 days: the old team until the day before, the new one from that day
      const moved = org.anchorDay - 1 - rng.int(59);
      rows.push({ user_email: shown, ...base(other, email), location, valid_to: day(moved - 1) });
      rows.push({ user_email: shown, ...base(team, email), location, valid_from: day(moved) });
    } else if (r < 0.06 && other !== team) {
      rows.push({ user_email: shown, ...base(team, email), location, primary: true, ...(left && { valid_to: left }) });
      rows.push({
        user_email: shown,
        ...base(other, email),
        location,
        primary: false,
        ...(left && { valid_to: left }),
      });
    } else {
      rows.push({ user_email: shown, ...base(team, email), location, ...(left && { valid_to: left }) });
    }
  }
  const engineering = teams.filter((t) => t.startsWith('Engineering/'));
  for (const sa of org.identities.filter((i) => i.kind === 'service_account')) {
    if (rng.next() < 0.25 || !engineering.length) continue;
    const team = rng.pick(engineering);
    rows.push({
      service_account_name: sa.id,
      team,
      cost_center: costCenter(team),
      manager: managers.get(team)!,
      location: '',
    });
  }
  return { teams, rows };
}
