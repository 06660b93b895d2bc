import { App } from '@modelcontextprotocol/ext-apps';
import { followHostTheme } from './host-theme.js';
import { viewModelOf, type ViewModel } from './model.js';
import { renderUsage, widthOf } from './render.js';

// Drawn only from the tool result the host hands over: this view never fetches data itself.
const root = document.getElementById('app')!;
const app = new App({ name: 'org-analytics usage view', version: '1.0.0' });
let tool = document.documentElement.dataset.tool ?? 'usage';
let shown: { model: ViewModel; width: number } | undefined;
app.ontoolinput = () => root.setAttribute('aria-busy', 'true');
app.ontoolresult = (result) => {
  root.removeAttribute('aria-busy');
  tool = app.getHostContext()?.toolInfo?.tool.name ?? tool;
  shown = { model: viewModelOf(tool, result), width: widthOf(root) };
  renderUsage(root, shown.model);
};
// The charts are drawn to the view's width: drawn again when the host makes it wider or narrower.
new ResizeObserver(() => {
  if (!shown || Math.abs(widthOf(root) - shown.width) < 24) return;
  shown.width = widthOf(root);
  renderUsage(root, shown.model);
}).observe(root);
void app.connect().then(() => followHostTheme(app));
