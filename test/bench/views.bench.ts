import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { VIEWS, type ViewName } from '../../src/ui/views.js';

const LIMIT = 1024 * 1024;

/** The size of each MCP Apps view as built into dist/views/ (npm run bench builds first): the limit is 1 MB. */
export async function benchViews(print: (line: string) => void): Promise<void> {
  print('\n## MCP Apps views (dist/views/, one self-contained HTML each)');
  print('| view | tools | bytes | gzip | of the 1 MB limit |');
  print('| --- | --- | --- | --- | --- |');
  for (const name of Object.keys(VIEWS) as ViewName[]) {
    const html = readFileSync(new URL(`../../dist/views/${name}.html`, import.meta.url));
    const share = `${((html.length / LIMIT) * 100).toFixed(0)}%`;
    print(`| ${name} | ${VIEWS[name].tools.join(', ')} | ${html.length} | ${gzipSync(html).length} | ${share} |`);
  }
}
