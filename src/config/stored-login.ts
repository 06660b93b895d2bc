import { z } from 'zod';

/** Which sign-in service and which registered client a login belongs to. */
export interface LoginAccount {
  authUrl: string;
  clientId: string;
}

/** What `login` keeps: the tokens, what they allow, and until when. Secret as a whole. */
export const storedLoginSchema = z.object({
  version: z.literal(1),
  auth_url: z.string(),
  client_id: z.string(),
  /** Random, kept across refreshes and across logins of the same identity: cache keys follow it, not the tokens. */
  login_id: z.string().min(8),
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  /** Epoch ms; null when the token response did not say (then only a 401 tells). */
  expires_at: z.number().nullable(),
  scopes: z.array(z.string()),
  /** Who signed in, when the token response said. */
  identity: z.string().optional(),
  obtained_at: z.string(),
});
export type StoredLogin = z.infer<typeof storedLoginSchema>;

export const endpointOf = (account: LoginAccount, name: 'authorize' | 'token') =>
  new URL(`${account.authUrl.replace(/\/+$/, '')}/${name}`);
