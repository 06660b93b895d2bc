import type { IncomingMessage, ServerResponse } from 'node:http';
import SCIMMY from 'scimmy';
import { BASE_PATH } from './scim-resources.js';
import type { ScimState } from './scim-state.js';

const MAX_BODY = 8 * 1024 * 1024;
const TYPE = 'application/scim+json';

function send(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  if (body === undefined) return void res.writeHead(status, headers).end();
  res.writeHead(status, { 'content-type': TYPE, ...headers }).end(JSON.stringify(body));
}

export function sendError(res: ServerResponse, status: number, detail: string, scimType?: string): void {
  send(res, status, new SCIMMY.Messages.Error({ status, scimType, detail } as never));
}

async function bodyOf(req: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new SCIMMY.Types.Error(413, null!, `request body over ${MAX_BODY} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new SCIMMY.Types.Error(400, 'invalidSyntax', 'the body is not JSON');
  }
}

/** Entra's older requests write `active` as the string "True" or "False"; SCIM's schema wants a boolean. */
function booleanActive(body: unknown): unknown {
  const ops = (body as { Operations?: Array<{ path?: string; value?: unknown }> } | undefined)?.Operations;
  const fix = (v: unknown) => (typeof v === 'string' && /^(true|false)$/i.test(v) ? v.toLowerCase() === 'true' : v);
  for (const op of ops ?? []) {
    if (op.path?.toLowerCase() === 'active') op.value = fix(op.value);
    else if (op.value && typeof op.value === 'object' && 'active' in op.value)
      (op.value as { active: unknown }).active = fix((op.value as { active: unknown }).active);
  }
  return body;
}

const RESOURCES = { Users: SCIMMY.Resources.User, Groups: SCIMMY.Resources.Group } as const;

/** One SCIM request against a tenant's state; `path` is what follows /scim/v2. */
export async function serveScim(req: IncomingMessage, res: ServerResponse, url: URL, path: string, state: ScimState) {
  try {
    const [collection, id, extra] = path.split('/').filter(Boolean).map(decodeURIComponent);
    const method = req.method ?? 'GET';
    if (extra !== undefined) return sendError(res, 404, `no SCIM endpoint ${BASE_PATH}${path}`);
    if (collection === 'ServiceProviderConfig' && method === 'GET')
      return send(res, 200, await new SCIMMY.Resources.ServiceProviderConfig().read());
    if (collection === 'ResourceTypes' && method === 'GET')
      return send(res, 200, await new SCIMMY.Resources.ResourceType(id).read());
    if (collection === 'Schemas' && method === 'GET')
      return send(res, 200, await new SCIMMY.Resources.Schema(id).read());
    const Resource = RESOURCES[collection as keyof typeof RESOURCES];
    if (!Resource)
      return sendError(
        res,
        404,
        `no SCIM endpoint ${BASE_PATH}${path}: use /Users, /Groups, /ServiceProviderConfig, /ResourceTypes or /Schemas`,
      );
    const q = url.searchParams;
    const number = (name: string) => (q.has(name) ? Number(q.get(name)) : undefined);
    const config = {
      ...(q.get('filter') ? { filter: q.get('filter')! } : {}),
      ...(q.get('attributes') ? { attributes: q.get('attributes')! } : {}),
      ...(q.get('excludedAttributes') ? { excludedAttributes: q.get('excludedAttributes')! } : {}),
      ...(number('startIndex') !== undefined ? { startIndex: number('startIndex') } : {}),
      ...(number('count') !== undefined ? { count: number('count') } : {}),
    };
    const resource = new Resource(id, config);
    if (method === 'GET') return send(res, 200, await resource.read(state));
    if (method === 'POST' && id === undefined) {
      const created = (await resource.write((await bodyOf(req)) as never, state)) as { id: string };
      return send(res, 201, created, { location: `${BASE_PATH}/${collection}/${created.id}` });
    }
    if (method === 'PUT' && id !== undefined)
      return send(res, 200, await resource.write((await bodyOf(req)) as never, state));
    if (method === 'PATCH' && id !== undefined) {
      const patched = await resource.patch(booleanActive(await bodyOf(req)) as never, state);
      return patched === undefined ? send(res, 204) : send(res, 200, patched);
    }
    if (method === 'DELETE' && id !== undefined) {
      await resource.dispose(state);
      return send(res, 204);
    }
    return sendError(res, 405, `${method} is not allowed on ${BASE_PATH}${path}`);
  } catch (error) {
    if (error instanceof SCIMMY.Types.Error) {
      const e = error as unknown as { status: number; scimType?: string; message: string };
      return sendError(res, e.status, e.message, e.scimType ?? undefined);
    }
    return sendError(res, 500, 'the SCIM request failed; see the server log');
  }
}
