export const SCOPES = ['read', 'write'] as const;
export type Scope = (typeof SCOPES)[number];

/** How the consent page words each scope, after the API specification's own descriptions. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  read: 'Read organization analytics, usage and budget configuration',
  write: 'Create, update or clear budget overrides',
};

/** The scopes of a space-separated `scope` parameter in canonical order, or the unknown names it holds. */
export function parseScope(text: string): { scopes: Scope[] } | { unknown: string[] } {
  const names = text.split(' ').filter((name) => name !== '');
  const unknown = names.filter((name) => !(SCOPES as readonly string[]).includes(name));
  if (unknown.length > 0) return { unknown };
  return { scopes: SCOPES.filter((scope) => names.includes(scope)) };
}

export const scopeText = (scopes: readonly Scope[]) => scopes.join(' ');
