import { PLAN_RESOURCE, type BillingPlan, type BudgetPeriod, type BudgetResource } from '../../contract/enums.js';
import type { Organization } from './organization.js';
import { Rng } from '../random.js';

export interface StoredOverride {
  /** Identity index in the organization. */
  owner: number;
  resource: BudgetResource;
  period: BudgetPeriod;
  /** A positive integer string, or '' once cleared. */
  limit: string;
}

const CREDIT_LIMITS = ['1000', '2500', '5000', '10000', '25000', '50000'];
const USD_LIMITS = ['50', '100', '250', '500', '1000'];

const keyOf = (owner: number, resource: BudgetResource, period: BudgetPeriod) => `${owner}|${resource}|${period}`;

/** The budget-override configuration: in memory, real time, seeded with a plausible starting state. */
export class OverrideStore {
  private readonly items = new Map<string, StoredOverride>();

  constructor(
    private readonly org: Organization,
    public plan: BillingPlan,
  ) {
    this.seed();
  }

  /** Some users and service accounts have overrides of each resource (an earlier plan left the other kind). */
  private seed(): void {
    const rng = new Rng(this.org.seed ^ 0x0b0d9e7);
    this.org.identities.forEach((identity, owner) => {
      const chance = identity.kind === 'service_account' ? 0.4 : 0.07;
      if (rng.next() < chance)
        this.put(owner, 'BUDGET_RESOURCE_CREDITS_CONSUMED', rng.next() < 0.1 ? '' : rng.pick(CREDIT_LIMITS));
      if (rng.next() < chance * 0.6)
        this.put(owner, 'BUDGET_RESOURCE_USD_COST', rng.next() < 0.1 ? '' : rng.pick(USD_LIMITS));
    });
  }

  private put(owner: number, resource: BudgetResource, limit: string): void {
    this.items.set(keyOf(owner, resource, 'BUDGET_PERIOD_MONTHLY'), {
      owner,
      resource,
      period: 'BUDGET_PERIOD_MONTHLY',
      limit,
    });
  }

  get planResource(): BudgetResource {
    return PLAN_RESOURCE[this.plan];
  }

  /** Overrides of identities that have left the organization are omitted from reads. */
  isCurrentMember(owner: number, today: number): boolean {
    return today < this.org.identities[owner]!.leaveDay;
  }

  /** Current members' overrides of the plan's resource, in the API's identity order. */
  read(
    today: number,
    filter: { owners?: Set<number>; resource?: BudgetResource; period?: BudgetPeriod },
  ): StoredOverride[] {
    return [...this.items.values()]
      .filter(
        (o) =>
          o.resource === this.planResource &&
          (filter.resource === undefined || o.resource === filter.resource) &&
          (filter.period === undefined || o.period === filter.period) &&
          (filter.owners === undefined || filter.owners.has(o.owner)) &&
          this.isCurrentMember(o.owner, today),
      )
      .sort((a, b) => a.owner - b.owner || (a.resource < b.resource ? -1 : 1));
  }

  /** Sets or clears one override; clearing one that does not exist changes nothing. */
  write(owner: number, resource: BudgetResource, period: BudgetPeriod, limit: string): void {
    const key = keyOf(owner, resource, period);
    if (limit === '' && !this.items.has(key)) return;
    this.items.set(key, { owner, resource, period, limit });
  }
}
