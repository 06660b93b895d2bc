import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import { CHANGELOG_CLIENTS } from '../../contract/enums.js';
import { UserInputError } from '../../errors.js';
import { clip } from '../../format/text.js';
import type { Redactor } from '../../privacy/redact.js';
import type { ProtocolFailure } from '../tool-errors.js';
import type { AnalyticsClient } from '../../upstream/client.js';
import { withDeadline } from '../../upstream/transport/deadline.js';
import { changelogTtlMs } from '../cache-hints.js';
import { changelog } from '../../upstream/endpoints/changelog.js';

export interface ChangelogResourceDeps {
  client: AnalyticsClient;
  redact: Redactor;
  fail: ProtocolFailure;
  callTimeoutS: number;
}

/** changelog://{client}/{page}: the public changelog for clients that read resources. */
export function registerChangelogResource(server: McpServer, deps: ChangelogResourceDeps): void {
  const template = new ResourceTemplate('changelog://{client}/{page}', {
    list: async () => ({
      resources: [
        {
          uri: 'changelog://all/0',
          name: 'changelog-latest',
          title: 'Latest changelog entries',
          mimeType: 'application/json',
        },
      ],
    }),
    complete: {
      client: (value) => CHANGELOG_CLIENTS.filter((c) => c.startsWith(value.toLowerCase())),
      page: (value) => (/^\d*$/.test(value) ? ['0', '1', '2', '3'].filter((p) => p.startsWith(value)) : []),
    },
  });
  server.registerResource(
    'changelog',
    template,
    {
      title: 'Product changelog',
      description:
        'Public changelog entries, newest first, 10 per page; client is one of all, vscode, jetbrains, cli, code-review, agent-platform, models.',
      mimeType: 'application/json',
    },
    async (uri, variables, ctx) => {
      const started = Date.now();
      try {
        const { client, page } = changelogPage(variables);
        const signal = withDeadline(ctx.mcpReq.signal, deps.callTimeoutS * 1000);
        const { value, freshness } = await deps.client.call(changelog, { client, page }, signal);
        return {
          contents: [{ uri: uri.href, mimeType: 'application/json', text: deps.redact.text(JSON.stringify(value)) }],
          // ttlMs is 2026-07-28 vocabulary: only its requests carry the per-request envelope.
          ...(ctx.mcpReq.envelope
            ? { ttlMs: changelogTtlMs(freshness, deps.client.now(), deps.client.refreshHour) }
            : {}),
        };
      } catch (error) {
        // A resource read has no isError result: it fails as a JSON-RPC error, in the funnel's words.
        throw deps.fail(error, 'resource read failed', { uri: uri.href, ms: Date.now() - started });
      }
    },
  );
}

function changelogPage(variables: Record<string, string | string[]>): { client: string; page: number } {
  const client = String(variables.client);
  const page = Number(variables.page);
  if (!(CHANGELOG_CLIENTS as readonly string[]).includes(client))
    throw new UserInputError(`Unknown changelog client '${clip(client)}'; use one of ${CHANGELOG_CLIENTS.join(', ')}.`);
  if (!Number.isSafeInteger(page) || page < 0)
    throw new UserInputError(
      `Changelog page must be a whole number of 0 or more, got '${clip(String(variables.page))}'.`,
    );
  return { client, page };
}
