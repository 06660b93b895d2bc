import type { BillingPlan } from '../spec/enums.js';
import { dayFromMs } from '../util/utc-date.js';
import { DayStore } from './activity.js';
import { generateChangelog, type ChangelogEntry } from './changelog-data.js';
import type { SimClock } from './clock.js';
import { generateOrganization, type Organization } from './organization.js';
import { OverrideStore } from './overrides.js';
import { ResultCache } from './pagination.js';

/** Everything the endpoints read and write. */
export class SimState {
  readonly org: Organization;
  readonly days: DayStore;
  readonly overrides: OverrideStore;
  readonly results = new ResultCache();
  readonly changelog: ChangelogEntry[];
  changelogUnavailable = false;

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
