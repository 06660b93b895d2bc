import { AGENT_PLATFORM_CLIENT } from '../../contract/enums.js';
import { formatDay } from '../../util/utc-date.js';
import { Rng } from '../random.js';

export interface ChangelogEntry {
  id: string;
  date: string;
  client: string;
  version: string;
  title: string;
  description: string;
  url: string;
}

const TOPICS: Record<string, readonly string[]> = {
  vscode: [
    'Faster inline completions',
    'Agent mode checkpoints',
    'Multi-root workspace indexing',
    'Diff review panel',
    'Terminal command approval',
  ],
  jetbrains: [
    'Agent tool-window redesign',
    'Gradle and Maven context',
    'Inline chat in diff view',
    'Remote development support',
    'Faster indexing of large monorepos',
  ],
  cli: [
    'Non-interactive mode for CI',
    'Session resume',
    'Custom slash commands',
    'Structured JSON output',
    'Sandboxed shell execution',
  ],
  'code-review': [
    'Review summaries on pull requests',
    'Suggested fixes as commits',
    'Per-repository review rules',
    'Security findings triage',
  ],
  [AGENT_PLATFORM_CLIENT]: [
    'Scheduled agent runs',
    'Agent run history and logs',
    'Org-wide agent policies',
    'Webhook-triggered agents',
  ],
  models: [
    'New default model',
    'Longer context window',
    'Lower latency for completions',
    'Model picker per workspace',
    'Prompt caching improvements',
  ],
};

/** A deterministic, newest-first changelog reaching back about two years from `anchorDay`. */
export function generateChangelog(seed: number, anchorDay: number, count = 137): ChangelogEntry[] {
  const rng = new Rng(seed ^ 0xc4a19e);
  const clients = Object.keys(TOPICS);
  const versions = new Map<string, number>();
  const entries: ChangelogEntry[] = [];
  let day = anchorDay - 1;
  for (let n = 0; n < count; n++) {
    const client = rng.pick(clients);
    const minor = (versions.get(client) ?? 60 + rng.int(40)) - 1;
    versions.set(client, minor);
    const topic = rng.pick(TOPICS[client]!);
    entries.push({
      id: `cl-${String(count - n).padStart(4, '0')}`,
      date: formatDay(day),
      client,
      version: `1.${minor}.${rng.int(4)}`,
      title: topic,
      description: `${topic} for ${client}. This release also includes stability and performance fixes.`,
      url: `/changelog/cl-${String(count - n).padStart(4, '0')}`,
    });
    day -= 2 + rng.int(8);
  }
  return entries;
}
