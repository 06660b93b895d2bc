// Writes the bundle's icon (dist/icon.png, 512×512) and the copy the server offers in serverInfo
// (dist/icon-64.png, read at start-up rather than drawn) from the one drawing in src/mcp/icon.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url);
const { outputFiles } = await build({
  entryPoints: [new URL('src/mcp/icon.ts', root).pathname],
  bundle: true,
  platform: 'node',
  format: 'esm',
  write: false,
  external: ['@modelcontextprotocol/server'],
});
const { iconPng, SERVED_ICON_FILE, SERVED_ICON_SIZE } = await import(
  `data:text/javascript,${encodeURIComponent(outputFiles[0].text)}`
);
mkdirSync(new URL('dist', root), { recursive: true });
writeFileSync(new URL('dist/icon.png', root), iconPng(512));
writeFileSync(new URL(`dist/${SERVED_ICON_FILE}`, root), iconPng(SERVED_ICON_SIZE));
