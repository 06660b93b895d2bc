/** Thrown by a handler to ask the user before writing; the server turns it into an input-required result. */
export class ConfirmationNeeded extends Error {
  constructor(
    message: string,
    /** Identifies exactly what the user is asked to approve; the answer only counts for the same digest. */
    readonly digest: string,
  ) {
    super(message);
  }
}
