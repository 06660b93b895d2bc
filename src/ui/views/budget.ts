import { App } from '@modelcontextprotocol/ext-apps';
import { followHostTheme } from './host-theme.js';

const root = document.getElementById('app')!;
const app = new App({ name: 'org-analytics budget view', version: '1.0.0' });
app.ontoolresult = (result) => {
  root.textContent = JSON.stringify(result.structuredContent).slice(0, 200);
};
void app.connect().then(() => followHostTheme(app));
