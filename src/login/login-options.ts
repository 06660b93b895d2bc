import { z } from 'zod';
import type { OptionTable } from '../config/cli-options.js';
import { SERVER_OPTIONS } from '../config/options.js';

const SCOPES = ['read', 'write'] as const;

/** The options of `login`, `logout` and `auth status`: the sign-in service, client and store are the server's own. */
export const LOGIN_OPTIONS = {
  authUrl: SERVER_OPTIONS.authUrl,
  clientId: SERVER_OPTIONS.clientId,
  credentialStore: SERVER_OPTIONS.credentialStore,
  scopes: {
    flag: 'scopes',
    env: 'ANALYTICS_LOGIN_SCOPES',
    kind: 'text',
    value: 'LIST',
    schema: z
      .string()
      .transform((text) => [...new Set(text.split(/[,\s]+/).filter(Boolean))])
      .pipe(z.array(z.enum(SCOPES, { message: 'scopes are read and write' })).min(1))
      .default(['read']),
    shown: 'read',
    help: 'comma-separated scopes to ask for: read, and write to change budgets (least privilege: read)',
  },
  noBrowser: {
    flag: 'no-browser',
    env: 'ANALYTICS_LOGIN_NO_BROWSER',
    kind: 'switch',
    schema: z.boolean().default(false),
    shown: 'off',
    help: 'do not open a browser; open the printed URL by hand',
  },
  demo: {
    ...SERVER_OPTIONS.demo,
    help: "sign in to a fresh embedded simulator's sign-in service, to see the flow (nothing is kept)",
  },
} satisfies OptionTable;
