import type { Implementation } from '@modelcontextprotocol/server';
import { serverIcons } from './icon.js';
import { VERSION } from '../version.js';

/** Who the server says it is in `initialize` (and, to a 2026-07-28 client, on every result), with its icon. */
export const serverInfo = (): Implementation => ({
  name: 'org-analytics-mcp',
  title: 'Org Analytics',
  version: VERSION,
  icons: serverIcons(),
});
