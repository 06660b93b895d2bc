import type { McpServer } from '@modelcontextprotocol/server';
import type { HistoryStore } from '../../history/store/history-store.js';
import type { Logger } from '../../logger.js';
import type { Redactor } from '../../privacy/redact.js';
import type { AnalyticsClient } from '../../upstream/client.js';
import { ANOMALIES_URI, latestAnomalies, onAnomalies } from '../../insights/anomaly-feed.js';
import type { ProtocolFailure } from '../tool-errors.js';

export interface AnomaliesResourceDeps {
  client: AnalyticsClient;
  /** The store, opened on first use; undefined when it cannot be used (said once on stderr). */
  store: () => Promise<HistoryStore | undefined>;
  redact: Redactor;
  fail: ProtocolFailure;
  log: Logger;
}

/**
 * anomalies://latest: the anomalies the latest sync published (see src/warm/anomaly-feed.ts). A client that
 * subscribes to it gets notifications/resources/updated when a sync of this process publishes new ones.
 */
export function registerAnomaliesResource(server: McpServer, deps: AnomaliesResourceDeps): void {
  server.registerResource(
    'anomalies',
    ANOMALIES_URI,
    {
      title: 'New anomalies',
      description:
        'The anomalies the latest history sync found that no earlier sync had published (find_anomalies answers any range); subscribe to hear of the next ones.',
      mimeType: 'application/json',
    },
    async (uri) => {
      try {
        const store = await deps.store();
        const feed = (store && (await latestAnomalies(store))) ?? {
          anomalies: [],
          note: 'No sync has published anomalies yet: they are published after a sync (org-analytics-mcp sync, or --sync).',
        };
        return {
          contents: [{ uri: uri.href, mimeType: 'application/json', text: deps.redact.text(JSON.stringify(feed)) }],
        };
      } catch (error) {
        throw deps.fail(error, 'resource read failed', { uri: uri.href });
      }
    },
  );
  // 2025-era clients subscribe per session: resources/subscribe, then notifications/resources/updated.
  // The listener is added on the first subscription: a server built per HTTP request adds none.
  const subscribed = new Set<string>();
  let stop: (() => void) | undefined;
  server.server.registerCapabilities({ resources: { subscribe: true } });
  server.server.setRequestHandler('resources/subscribe', (request) => {
    subscribed.add(request.params.uri);
    stop ??= onAnomalies(deps.client, () => {
      if (subscribed.has(ANOMALIES_URI))
        server.server
          .sendResourceUpdated({ uri: ANOMALIES_URI })
          .catch((error: Error) => deps.log.debug('could not announce new anomalies', { error: error.message }));
    });
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });
  const closed = server.server.onclose;
  server.server.onclose = () => {
    stop?.();
    closed?.();
  };
}
