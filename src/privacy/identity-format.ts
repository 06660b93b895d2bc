import { UserInputError } from '../errors.js';
import { clip } from '../format/text.js';

/**
 * What can be checked about an identity before it is sent: a malformed one makes the upstream refuse the
 * whole request (400), which would fail the valid entries with it.
 */
const SERVICE_ACCOUNT_NAME = /^[A-Za-z0-9_-]{1,100}$/;
// Deliberately wide (Unicode, apostrophes, single-label domains): it rejects what cannot be an address, nothing more.
const EMAIL = /^[^\s@"<>(),;:\\[\]]{1,64}@[^\s@"<>(),;:\\[\]./]+(\.[^\s@"<>(),;:\\[\]./]+)*$/u;

/** Upstream cursors are short opaque strings; anything far longer is not one of them. */
export const MAX_CURSOR_LENGTH = 4096;

export function emailProblem(text: string): string | undefined {
  if (text.length <= 254 && EMAIL.test(text)) return undefined;
  return `'${clip(text)}' is not an email address (expected name@domain); a service account is named without @ (1-100 letters, digits, - or _)`;
}

export function serviceAccountProblem(text: string): string | undefined {
  if (SERVICE_ACCOUNT_NAME.test(text)) return undefined;
  return `'${clip(text)}' is not a service-account name (1-100 letters, digits, - or _); a user is given by email address`;
}

export function assertServiceAccountName(text: string): string {
  const problem = serviceAccountProblem(text);
  if (problem) throw new UserInputError(problem);
  return text;
}

export function assertCursor(cursor: string | undefined): void {
  if (cursor === undefined || cursor.length <= MAX_CURSOR_LENGTH) return;
  throw new UserInputError(
    `cursor is ${cursor.length} characters long, which no upstream cursor is; pass back next_cursor exactly as an earlier answer gave it, or leave cursor out to start from the first page`,
  );
}
