import { z } from 'zod';
import { wholeNumber, type Option } from './cli-options.js';

/** The options of the organization's directory (teams and cost centers), part of the server's one table. */
export const DIRECTORY_OPTIONS = {
  directory: {
    flag: 'directory',
    env: 'ANALYTICS_DIRECTORY',
    kind: 'text',
    value: 'FILE',
    schema: z.string().min(1).optional(),
    shown: 'none',
    help: 'who belongs to which team and cost center: a CSV (or JSON lines) file, read again when it changes',
  },
  minGroupSize: {
    flag: 'min-group-size',
    env: 'ANALYTICS_MIN_GROUP_SIZE',
    kind: 'number',
    value: 'N',
    schema: wholeNumber('--min-group-size / ANALYTICS_MIN_GROUP_SIZE', 'people', { min: 1, max: 1000, fallback: 5 }),
    shown: '5',
    help: 'with --pii pseudonymous, groups smaller than N are folded into their parent team',
  },
  scimTokenEnv: {
    flag: 'scim-token-env',
    env: 'ANALYTICS_SCIM_TOKEN_ENV',
    kind: 'text',
    value: 'NAME',
    schema: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, '--scim-token-env / ANALYTICS_SCIM_TOKEN_ENV names an environment variable')
      .optional(),
    shown: 'none: no SCIM',
    help: 'over --http, serve SCIM 2.0 provisioning at /scim/v2 with the bearer token held in the variable NAME',
  },
} as const satisfies Record<string, Option>;
