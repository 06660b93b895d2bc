import type { RateGroup } from '../../contract/limits.js';
import type { EndpointContext } from '../state.js';

/** page_size when absent, and the largest honoured (a larger one is clamped). */
export interface PageSizes {
  default: number;
  max: number;
}

/** One path the simulator serves. Each endpoint module exports its routes beside its handlers. */
export interface Route {
  path: string;
  method: 'GET' | 'POST';
  /** null: public, no token and no rate limit (the changelog). */
  scope: 'read' | 'write' | null;
  group: RateGroup;
  pages?: PageSizes;
  handle: (ctx: EndpointContext) => unknown;
}

export const API = '/analytics/v0/';
