// Bundles each MCP Apps view into one self-contained HTML file: its script and styles inline, nothing fetched.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url);
const from = (path) => new URL(path, root).pathname;
const css = readFileSync(from('src/ui/views/view.css'), 'utf8')
  .replace(/\/\*[\s\S]*?\*\//g, '')
  .replace(/\s+/g, ' ');
mkdirSync(from('dist/views'), { recursive: true });

// zod re-exports its error messages in 40-odd languages (a quarter of a megabyte); a view needs English only.
const englishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: from('node_modules/zod/v4/locales'),
    }));
  },
};

for (const [name, title] of [
  ['usage', 'Usage'],
  ['budget', 'Budgets'],
]) {
  const out = await build({
    entryPoints: [from(`src/ui/views/${name}.ts`)],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'warning',
    plugins: [englishOnly],
  });
  // "</script" inside the script would end it early.
  const js = out.outputFiles[0].text.replaceAll('</script', '<\\/script');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title><style>${css}</style></head><body><main id="app" aria-live="polite"></main><script>${js}</script></body></html>`;
  writeFileSync(from(`dist/views/${name}.html`), html);
}
