import type { BillingPlan } from '../contract/enums.js';
import { dayFromMs, parseIsoDay } from '../util/utc-date.js';
import { seedFrom } from './random.js';
import { DayStore, type DayData } from './data/activity.js';
import { generateOrgChart, type OrgChart } from './data/org-chart.js';
import { generateChangelog, type ChangelogEntry } from './data/changelog-data.js';
import { SimClock } from './clock.js';
import { generateOrganization, type Organization } from './data/organization.js';
import { OverrideStore } from './data/overrides.js';
import { ResultCache } from './http/pagination.js';

/** The metrics of day D appear at 02:00 UTC on D+1. */
export const PUBLISH_DELAY_MS = 2 * 3_600_000;

function emptyDay(day: number): DayData {
  return {
    day,
    ids: new Int32Array(0),
    metrics: new Int32Array(0),
    creditModels: new Int8Array(0),
    credits: new Int32Array(0),
    unpublished: true,
  };
}

/** The state the options describe: its clock (frozen at `now` when given) and its organization. */
export function stateOf(options: {
  users: number;
  seed: string | number;
  plan: BillingPlan;
  now?: string | number | undefined;
  anchorDate?: string | undefined;
}): SimState {
  const clock = new SimClock(options.now !== undefined ? { now: options.now, frozen: true } : undefined);
  return new SimState(clock, {
    users: options.users,
    seed: seedFrom(options.seed),
    plan: options.plan,
    anchorDay: options.anchorDate ? parseIsoDay(options.anchorDate) : undefined,
  });
}

/** Everything the endpoints read and write. */
export class SimState {
  readonly org: Organization;
  readonly days: DayStore;
  readonly overrides: OverrideStore;
  readonly results = new ResultCache();
  readonly changelog: ChangelogEntry[];
  changelogUnavailable = false;
  private chart?: OrgChart;

  constructor(
    readonly clock: SimClock,
    options: { users: number; seed: number; plan: BillingPlan; anchorDay?: number },
  ) {
    const anchorDay = options.anchorDay ?? dayFromMs(clock.now());
    this.org = generateOrganization({ users: options.users, seed: options.seed, anchorDay });
    this.days = new DayStore(this.org);
    this.overrides = new OverrideStore(this.org, options.plan);
    this.changelog = generateChangelog(options.seed, anchorDay);
  }

  /** The organization's chart (teams, cost centers, moves), drawn once on first use. */
  orgChart(): OrgChart {
    return (this.chart ??= generateOrgChart(this.org));
  }

  /**
   * Computes the most recent days in the background, newest first, one per event-loop turn, so the
   * first real request of a large organization finds them ready. Returns a function that stops it.
   */
  warm(days: number): () => void {
    let next = this.today() - 1;
    const last = next - days + 1;
    let timer: NodeJS.Immediate | undefined;
    const step = () => {
      if (next < last) return;
      this.days.get(next--);
      timer = setImmediate(step);
    };
    timer = setImmediate(step);
    return () => clearImmediate(timer);
  }

  /** A day's data is published at about 02:00 UTC the next day; before that the day reads as empty. */
  published(day: number): DayData {
    return day <= this.latestPublishedDay() ? this.days.get(day) : emptyDay(day);
  }

  latestPublishedDay(): number {
    return dayFromMs(this.clock.now() - PUBLISH_DELAY_MS) - 1;
  }

  /** A key for cached query results that changes when another day is published or the date moves. */
  resultKey(fp: string): string {
    return `${fp}@${this.today()}@${this.latestPublishedDay()}`;
  }

  today(): number {
    return dayFromMs(this.clock.now());
  }

  generatedAt(): string {
    return new Date(this.clock.now()).toISOString();
  }
}

export interface EndpointContext {
  state: SimState;
  query: URLSearchParams;
  body: unknown;
}
