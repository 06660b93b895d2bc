import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  OAuthError,
  OAuthErrorCode,
  bearerAuthChallengeResponse,
  getOAuthProtectedResourceMetadataUrl,
  verifyBearerToken,
  type AuthInfo,
} from '@modelcontextprotocol/server';
import { Authenticator, callerOf } from '../auth/authenticator.js';
import { READ_SCOPE, SCOPES, WRITE_SCOPE, type Caller } from '../auth/caller.js';
import type { Config } from '../config/config.js';
import type { ToolInventory } from '../mcp/tool-inventory.js';

type AuthConfig = Pick<Config, 'publicUrl' | 'authIssuer' | 'apiKeysFile' | 'tenantClaim'>;

/** Whether callers must authenticate: an authorization server or a keys file is configured. */
export const authenticates = (config: AuthConfig) => Boolean(config.authIssuer || config.apiKeysFile);

/**
 * The resource-server side of MCP authorization: Protected Resource Metadata (RFC 9728), bearer checks with
 * the SDK's helpers and our verifier, and the step-up challenge for a write by a read-only caller.
 */
export class HttpAuth {
  private readonly verifier: Authenticator;
  readonly metadataUrl: string | undefined;

  constructor(
    private readonly config: AuthConfig,
    private readonly inventory: (caller: Caller) => Pick<ToolInventory, 'withheld'>,
    private readonly admit: (caller: Caller) => string | undefined = () => undefined,
  ) {
    this.verifier = new Authenticator(config);
    this.metadataUrl = config.publicUrl ? getOAuthProtectedResourceMetadataUrl(new URL(config.publicUrl)) : undefined;
  }

  /** The metadata document, served at both well-known paths. */
  metadata(): Record<string, unknown> {
    return {
      resource: this.config.publicUrl,
      ...(this.config.authIssuer ? { authorization_servers: [this.config.authIssuer] } : {}),
      scopes_supported: [...SCOPES],
      bearer_methods_supported: ['header'],
      resource_name: 'org-analytics-mcp',
    };
  }

  /** The verified caller's AuthInfo, or the 401 that was sent instead. */
  async authenticate(req: IncomingMessage, res: ServerResponse): Promise<AuthInfo | undefined> {
    let info: AuthInfo;
    try {
      info = await verifyBearerToken(req.headers.authorization, {
        verifier: this.verifier,
        requiredScopes: [READ_SCOPE],
        resourceMetadataUrl: this.metadataUrl,
        ...(this.config.publicUrl ? { expectedResource: new URL(this.config.publicUrl) } : {}),
      });
    } catch (error) {
      await send(
        res,
        bearerAuthChallengeResponse(error, { requiredScopes: [READ_SCOPE], resourceMetadataUrl: this.metadataUrl }),
      );
      return undefined;
    }
    const refusal = this.admit(callerOf(info)!);
    if (refusal === undefined) return info;
    res.writeHead(403, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'access_denied', error_description: refusal }));
    return undefined;
  }

  /**
   * A caller whose role the inventory refuses a tool (a read caller calling a write tool) gets 403
   * insufficient_scope naming both scopes, so that its client can ask for more; nothing reaches the tool.
   * True when the request may go on.
   */
  async allows(caller: Caller, body: unknown, res: ServerResponse): Promise<boolean> {
    const inventory = this.inventory(caller);
    const messages = Array.isArray(body) ? body : [body];
    const refused = messages.some((m) => {
      const message = m as { method?: unknown; params?: { name?: unknown } } | null;
      return message?.method === 'tools/call' && inventory.withheld(String(message.params?.name)) === 'role';
    });
    if (!refused) return true;
    const refusal = new OAuthError(OAuthErrorCode.InsufficientScope, `changing budgets needs the ${WRITE_SCOPE} scope`);
    await send(
      res,
      bearerAuthChallengeResponse(refusal, {
        requiredScopes: [READ_SCOPE, WRITE_SCOPE],
        resourceMetadataUrl: this.metadataUrl,
      }),
    );
    return false;
  }
}

/** Writes a web Response to a Node response. */
export async function send(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
  res.end(await response.text());
}

/** The JSON body of a request, or undefined when it is not JSON (the MCP handler then answers the parse error). */
export async function readJson(
  req: IncomingMessage,
  limit = 4 * 1024 * 1024,
): Promise<{ text: string; json: unknown }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new Error('request body too large');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return { text, json: JSON.parse(text) };
  } catch {
    return { text, json: undefined };
  }
}
