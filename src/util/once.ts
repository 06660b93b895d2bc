/** The first call's promise, for every call: however many ask to close a thing, it closes once. */
export function once(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => (closing ??= close());
}
