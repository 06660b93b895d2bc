import { randomBytes } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  type ClientCapabilities,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Config } from '../config/config.js';
import type { ToolContext, ToolDef } from '../tools/types.js';
import { writes } from './tool-inventory.js';

const CONFIRM = z.object({ confirm: z.boolean().describe('Apply these changes') });

/**
 * Request state comes back from the client and must not be trusted: the SDK's codec signs the digest of
 * what the user is asked to approve, and it expires, so an old "yes" cannot approve a later change.
 */
type Codec = ReturnType<typeof createRequestStateCodec<{ digest: string }>>;
const PROCESS_KEY = randomBytes(32);
const codecs = new Map<string, Codec>();

/**
 * The codec for `key`: replicas serving one organization derive the same key from its upstream token, so a
 * confirmation asked by one is accepted by another. Without a key, one random to this process.
 */
function codecFor(key: Uint8Array = PROCESS_KEY): Codec {
  const id = Buffer.from(key).toString('hex');
  let codec = codecs.get(id);
  if (!codec) codecs.set(id, (codec = createRequestStateCodec<{ digest: string }>({ key, ttlSeconds: 600 })));
  return codec;
}

/**
 * A tools/call that ends by asking the user to approve a write (ctx.confirmation.ask): runTool answers it with
 * askToConfirm's input-required result. `digest` identifies exactly what is approved.
 */
export class ConfirmationNeeded extends Error {
  constructor(
    message: string,
    readonly digest: string,
  ) {
    super(message);
  }
}

/** The input-required answer that asks the user to approve exactly the change named by `digest`. */
export async function askToConfirm(message: string, digest: string, key?: Uint8Array) {
  return inputRequired({
    inputRequests: { confirm: inputRequired.elicit({ message, requestedSchema: CONFIRM }) },
    requestState: await codecFor(key).mint({ digest }),
  });
}

/**
 * What the client of this call can do: its capabilities come with each request on 2026-07-28 and from
 * initialize on 2025-era connections; a stateless 2025-era HTTP request carries neither (undefined).
 */
export function clientCapabilities(server: McpServer, ctx: ServerContext): ClientCapabilities | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return (
    (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ??
    server.server.getClientCapabilities()
  );
}

/**
 * How this call of `def` can confirm a write: not at all for a tool that does not write or under
 * --confirm-writes never. When the client's capabilities are unknown (a stateless 2025-era HTTP request),
 * whether it could confirm is unknown too, and a write must not go ahead unasked.
 */
export function confirmationFor(
  server: McpServer,
  ctx: ServerContext,
  def: Pick<ToolDef, 'annotations'>,
  config: Pick<Config, 'confirmWrites' | 'transport'>,
  key?: Uint8Array,
): ToolContext['confirmation'] {
  if (!writes(def) || config.confirmWrites === 'never') return undefined;
  // Refuse a write the client cannot confirm (always over HTTP, or --confirm-writes always), rather than write unasked.
  const refuseUnconfirmed = config.transport === 'http' || config.confirmWrites === 'always';
  const caps = clientCapabilities(server, ctx);
  if (caps === undefined)
    return { why: 'this request does not say what its client can do (a 2025-era client over stateless HTTP)' };
  // Over stdio the client is the user's own app. Over HTTP any local process may be the caller, so a write
  // nobody could confirm is refused; --confirm-writes never is the explicit opt-out.
  if (caps.elicitation === undefined)
    return refuseUnconfirmed ? { why: 'this client cannot show a confirmation form (no elicitation)' } : undefined;
  return {
    ask(message, digest) {
      throw new ConfirmationNeeded(message, digest);
    },
    async answer(digest) {
      const view = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
      if (view.kind !== 'elicit') return 'missing';
      if (view.action === 'decline') return 'declined';
      if (view.action === 'cancel') return 'cancelled';
      if (view.content?.confirm !== true) return 'declined';
      // The answer approves the change it was asked about, not whatever the overrides look like now; a
      // forged, altered or expired state asks again rather than failing the call.
      const state = ctx.mcpReq.requestState();
      if (typeof state !== 'string') return 'stale';
      const approved = await codecFor(key)
        .verify(state, ctx)
        .catch(() => undefined);
      return approved?.digest === digest ? 'accepted' : 'stale';
    },
  };
}
