import { z } from 'zod';
import { compareDecimals } from '../../domain/numbers.js';
import { assertServiceAccountName } from '../../privacy/identity-format.js';
import type { ToolContext } from '../types.js';

/** A record names exactly one of these (the upstream schemas check it). */
export interface IdentityFields {
  user_email?: string;
  service_account_name?: string;
}

export const identityOut = { user: z.string(), kind: z.enum(['user', 'service_account']) };

export function identityOf(r: IdentityFields): { user: string; kind: 'user' | 'service_account' } {
  return r.user_email !== undefined
    ? { user: r.user_email, kind: 'user' }
    : { user: r.service_account_name ?? '', kind: 'service_account' };
}

/** Sorts by a numeric or decimal-string key; ties keep a stable, readable order. */
export function sortRows<T>(
  rows: T[],
  key: (r: T) => number | string,
  order: 'asc' | 'desc',
  tie: (r: T) => string,
): T[] {
  const sign = order === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = key(a);
    const y = key(b);
    const c = typeof x === 'string' || typeof y === 'string' ? compareDecimals(String(x), String(y)) : x - y;
    return c !== 0 ? sign * c : tie(a) < tie(b) ? -1 : tie(a) > tie(b) ? 1 : 0;
  });
}

/** The identity a `user` argument names: an email (or pseudonym), else a service-account name. */
export async function identityNamed(ctx: ToolContext, user: string): Promise<IdentityFields> {
  return user.includes('@')
    ? { user_email: (await ctx.resolveEmail(user)).toLowerCase() }
    : { service_account_name: assertServiceAccountName(user) };
}

/** Identities as the upstream's filters take them (overrides, cost analytics). */
export function identityFilters(ids: IdentityFields[]): { user_emails: string[]; service_account_names: string[] } {
  return {
    user_emails: ids.flatMap((id) => (id.user_email ? [id.user_email] : [])),
    service_account_names: ids.flatMap((id) => (id.service_account_name ? [id.service_account_name] : [])),
  };
}

/** Resolves the `users` filter (emails, pseudonyms or service-account names) to a matcher. */
export async function userMatcher(
  users: string[] | undefined,
  ctx: ToolContext,
): Promise<((r: IdentityFields) => boolean) | undefined> {
  if (!users || users.length === 0) return undefined;
  const named = identityFilters(await Promise.all(users.map((u) => identityNamed(ctx, u))));
  const emails = new Set(named.user_emails);
  const accounts = new Set(named.service_account_names);
  return (r) =>
    r.user_email !== undefined ? emails.has(r.user_email.toLowerCase()) : accounts.has(r.service_account_name ?? '');
}
