/** What the model does after a refused argument, unless the refusal says otherwise. */
export const CHANGE_ARGUMENTS = 'Change the arguments and call again.';

/**
 * The one class for arguments refused here, before anything was sent, by the tools, the dates, the budget
 * code or an endpoint's own checks: a malformed email, an unknown pseudonym, a date out of range, an
 * argument name the tool does not take, a write that cannot be confirmed. Unlike the upstream family
 * (whose InvalidArgumentError is the upstream's own 400), it never claims the analytics API said anything.
 */
export class UserInputError extends Error {
  readonly kind = 'user_input';
  constructor(
    message: string,
    /** What to do instead, when changing the arguments is not it (a write this connection cannot confirm). */
    readonly nextStep = CHANGE_ARGUMENTS,
  ) {
    super(message);
    this.name = 'UserInputError';
  }
}
