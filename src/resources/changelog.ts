import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import { CHANGELOG_CLIENTS } from '../contract/enums.js';
import type { Redactor } from '../redact.js';
import type { AnalyticsClient } from '../upstream/client.js';
import { withDeadline } from '../upstream/deadline.js';

/** changelog://{client}/{page}: the public changelog for clients that read resources. */
export function registerChangelogResource(server: McpServer, client: AnalyticsClient, redact: Redactor, callTimeoutS: number): void {
  const template = new ResourceTemplate('changelog://{client}/{page}', {
    list: async () => ({
      resources: [{ uri: 'changelog://all/0', name: 'changelog-latest', title: 'Latest changelog entries', mimeType: 'application/json' }],
    }),
    complete: {
      client: (value) => CHANGELOG_CLIENTS.filter((c) => c.startsWith(value.toLowerCase())),
      page: (value) => (/^\d*$/.test(value) ? ['0', '1', '2', '3'].filter((p) => p.startsWith(value)) : []),
    },
  });
  server.registerResource(
    'changelog',
    template,
    { title: 'Product changelog', description: 'Public changelog entries, newest first, 10 per page; client is one of all, vscode, jetbrains, cli, code-review, agent-platform, models.', mimeType: 'application/json' },
    async (uri, variables, ctx) => {
      const name = String(variables.client);
      const page = Number(variables.page);
      if (!(CHANGELOG_CLIENTS as readonly string[]).includes(name)) throw new Error(`Unknown changelog client '${name}'; use one of ${CHANGELOG_CLIENTS.join(', ')}.`);
      if (!Number.isSafeInteger(page) || page < 0) throw new Error(`Changelog page must be a whole number of 0 or more, got '${String(variables.page)}'.`);
      try {
        const { value } = await client.changelog(name, page, withDeadline(ctx.mcpReq.signal, callTimeoutS * 1000));
        return { contents: [{ uri: uri.href, mimeType: 'application/json', text: redact.text(JSON.stringify(value)) }] };
      } catch (error) {
        throw new Error(redact.text(error instanceof Error ? error.message : String(error)));
      }
    },
  );
}
