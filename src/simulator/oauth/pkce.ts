import { createHash, randomBytes } from 'node:crypto';

/** RFC 7636 4.1: a code verifier, and the S256 challenge made from one, are 43–128 unreserved characters. */
const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;

export const isPkceValue = (value: string) => PKCE_VALUE.test(value);

export const s256Challenge = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url');

/** An unguessable value: 256 random bits, base64url, after a prefix that tells what it is. */
export const randomSecret = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;
