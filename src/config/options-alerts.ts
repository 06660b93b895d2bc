import { z } from 'zod';
import { ALERT_TYPES } from '../domain/alerts.js';
import type { Option } from './cli-options.js';

/** The option of issue 35's alerts, part of the server's one table. */
export const ALERTS_OPTIONS = {
  alertsFile: {
    flag: 'alerts-file',
    env: 'ANALYTICS_ALERTS_FILE',
    kind: 'text',
    value: 'FILE',
    schema: z.string().min(1).optional(),
    shown: 'none: no alerts',
    help: 'after each sync, send alerts (webhook, Slack, email) to the destinations this JSON file names',
  },
  alertsOrganization: {
    flag: 'alerts-organization',
    env: 'ANALYTICS_ALERTS_ORGANIZATION',
    kind: 'text',
    value: 'NAME',
    schema: z.string().trim().min(1).max(200).optional(),
    shown: "the API's host",
    help: "the organization's name alerts carry (their data's organization, Slack's header); the API names none",
  },
} as const satisfies Record<string, Option>;

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'names an environment variable, e.g. ALERTS_SECRET');
/** An exact decimal, as a string or a JSON number (kept as the text it was written as). */
const minimum = z
  .union([z.string(), z.number()])
  .transform((v) => String(v))
  .refine((v) => /^\d+(\.\d+)?$/.test(v), 'is a decimal of 0 or more, e.g. "50" or "12.5"');
const filters = {
  name: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'is 1 to 64 letters, digits, dots, dashes or underscores'),
  events: z
    .array(z.enum(['*', ...ALERT_TYPES], { message: `takes "*" or event types: ${ALERT_TYPES.join(', ')}` }))
    .min(1, 'lists at least one event type, or "*"'),
  min_excess_usd: minimum.optional(),
  min_excess_credits: minimum.optional(),
  identities: z.array(z.string().min(1)).optional(),
  teams: z.array(z.string().min(1)).optional(),
};

/** One destination as the file writes it. */
export const destinationSchema = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({ ...filters, kind: z.literal('webhook'), url: z.string(), secret_env: envName }),
    z.strictObject({ ...filters, kind: z.literal('slack'), url: z.string() }),
    z.strictObject({
      ...filters,
      kind: z.literal('email'),
      smtp_url_env: envName,
      from: z.string().min(3),
      to: z.union([
        z
          .string()
          .min(3)
          .transform((t) => [t]),
        z.array(z.string().min(3)).min(1),
      ]),
    }),
  ],
  { message: 'kind takes webhook, slack or email' },
);

export const alertsFileSchema = z.strictObject({
  destinations: z
    .array(destinationSchema)
    .refine((d) => new Set(d.map((x) => x.name)).size === d.length, 'names each destination once'),
});

export type DestinationSpec = z.output<typeof destinationSchema>;

/**
 * What the outbox needs of a destination to decide whether it wants an alert: its name, events and filters.
 * Identities are `u:<email lowercased>` or `s:<service account>`.
 */
export interface AlertFilter {
  name: string;
  events: readonly string[];
  minExcessUsd?: string;
  minExcessCredits?: string;
  identities?: readonly string[];
  teams?: readonly string[];
}

/** `ana@x.com`, `u:Ana@x.com` or `s:bot`, as the outbox's identities are written. */
export function identityKey(text: string): string {
  if (text.startsWith('s:')) return text;
  const email = text.startsWith('u:') ? text.slice(2) : text;
  return email.includes('@') || text.startsWith('u:') ? `u:${email.toLowerCase()}` : `s:${text}`;
}

export function filterOf(spec: DestinationSpec): AlertFilter {
  return {
    name: spec.name,
    events: spec.events,
    minExcessUsd: spec.min_excess_usd,
    minExcessCredits: spec.min_excess_credits,
    identities: spec.identities?.map(identityKey),
    teams: spec.teams,
  };
}
