/** An analytics/budget API error: the `{ error: { code, message } }` body with its status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const invalidArgument = (message: string) => new ApiError(400, 'InvalidArgument', message);

/** The changelog endpoint's own error body: success, error, code, message, resolution. */
export class ChangelogError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly resolution: string,
  ) {
    super(message);
  }

  body() {
    return { success: false, error: this.message, code: this.code, message: this.message, resolution: this.resolution };
  }
}

export const changelogUnavailable = () =>
  new ChangelogError(
    500,
    'CHANGELOG_UNAVAILABLE',
    'Changelog content is temporarily unavailable.',
    'Retry in a few minutes.',
  );
