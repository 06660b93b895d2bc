import { App } from '@modelcontextprotocol/ext-apps';
import { followHostTheme } from './host-theme.js';
import { viewModelOf } from './model.js';
import { renderUsage } from './render.js';

// Drawn only from the tool result the host hands over: this view never fetches data itself.
const root = document.getElementById('app')!;
const app = new App({ name: 'org-analytics usage view', version: '1.0.0' });
let tool = document.documentElement.dataset.tool ?? 'usage';
app.ontoolinput = () => root.setAttribute('aria-busy', 'true');
app.ontoolresult = (result) => {
  root.removeAttribute('aria-busy');
  tool = app.getHostContext()?.toolInfo?.tool.name ?? tool;
  renderUsage(root, viewModelOf(tool, result));
};
void app.connect().then(() => followHostTheme(app));
