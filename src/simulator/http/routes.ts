import { routes as budgetOverrides } from '../endpoints/budget-overrides.js';
import { routes as changelog } from '../endpoints/changelog.js';
import { routes as costAnalytics } from '../endpoints/cost-analytics.js';
import { routes as creditUsage } from '../endpoints/credit-usage.js';
import { routes as metrics } from '../endpoints/metrics-endpoints.js';
import type { Route } from './route.js';

export { CHANGELOG_PATH } from '../endpoints/changelog.js';
export type { Route } from './route.js';

/** Every path the simulator serves, from the routes each endpoint module declares beside its handlers. */
export const ROUTES: Record<string, Route> = Object.fromEntries(
  [...metrics, ...creditUsage, ...costAnalytics, ...budgetOverrides, ...changelog].map((r) => [r.path, r]),
);
