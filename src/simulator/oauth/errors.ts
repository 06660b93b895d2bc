/** The `error` codes of RFC 6749 5.2 that the token endpoint answers with. */
export type TokenErrorCode =
  'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type' | 'invalid_scope';

/** A token endpoint refusal: `{ error, error_description }` with its status. */
export class OAuthError extends Error {
  constructor(
    readonly error: TokenErrorCode,
    description: string,
    readonly status = error === 'invalid_client' ? 401 : 400,
  ) {
    super(description);
  }

  body() {
    return { error: this.error, error_description: this.message };
  }
}

export const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);
