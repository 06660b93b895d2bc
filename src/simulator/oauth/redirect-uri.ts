/**
 * An http(s) URI on a loopback IP literal, split around its port. `localhost` is not one: RFC 8252 8.3 asks
 * native apps to listen on the IP literal, since the name may resolve elsewhere.
 */
const LOOPBACK_URI = /^(https?:\/\/(?:127\.0\.0\.1|\[::1\]))(?::(\d{1,5}))?([/?][^#]*)?$/;

/** The URI with its port left out, when it is a loopback URI with a usable port (or none). */
function withoutLoopbackPort(uri: string): string | undefined {
  const match = LOOPBACK_URI.exec(uri);
  if (!match) return undefined;
  const port = match[2] === undefined ? undefined : Number(match[2]);
  if (port !== undefined && (port < 1 || port > 65_535)) return undefined;
  return `${match[1]}${match[3] ?? ''}`;
}

/**
 * Whether `candidate` is one of the registered redirect URIs: the exact string, except that a loopback IP
 * host may carry any port (RFC 8252 7.3), since a native app listens on whichever port is free.
 */
export function isRegisteredRedirectUri(registered: readonly string[], candidate: string): boolean {
  if (!URL.canParse(candidate)) return false;
  const portless = withoutLoopbackPort(candidate);
  return registered.some(
    (uri) => uri === candidate || (portless !== undefined && withoutLoopbackPort(uri) === portless),
  );
}

/** The redirect URI with the response parameters added to its query; an absent value is left out. */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.href;
}
