import { YESTERDAY } from './sim.js';

/** The simulator's size behind the per-tool tests: large enough for sorting, limits and paging to matter. */
export const TOOL_TEST_USERS = 400;

/** The identity of an upstream record: its email, or its service-account name. */
export const idOf = (r: any) => r.user_email ?? r.service_account_name;

/** last_30_days resolved at the frozen test clock. */
export const R30 = { start_date: '2026-10-22', end_date: YESTERDAY };
