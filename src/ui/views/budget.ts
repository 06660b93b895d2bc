import { App } from '@modelcontextprotocol/ext-apps';
import { budgetRowsOf, overrideOf, type BudgetRow } from './budget-model.js';
import { followHostTheme } from './host-theme.js';
import { el, table } from './render.js';

// The server says, in the page it serves, whether this view may edit: not on a read-only server or login.
const writable = document.documentElement.dataset.writable === 'true';
const root = document.getElementById('app')!;
const app = new App({ name: 'org-analytics budget view', version: '1.0.0' });
let rows: BudgetRow[] = [];
const edits = new Map<number, string>();
const status = el('p', { role: 'status' });
const preview = el('div', { class: 'diff' });

function percentBar(row: BudgetRow): Node {
  if (row.percent === null) return document.createTextNode('');
  const shown = `${row.percent}%`;
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 100 10');
  svg.setAttribute('width', '48');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `${row.user}: ${shown} of the limit used`);
  const bar = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
  bar.setAttribute('width', String(Math.min(100, Math.max(1, row.percent))));
  bar.setAttribute('height', '10');
  bar.setAttribute('class', `bar status-${row.status}`);
  bar.setAttribute('style', 'fill: currentColor');
  svg.append(bar);
  return el('span', { class: `status-${row.status}` }, svg, ` ${shown}`);
}

function render(note: string): void {
  const head = ['Who', 'Status', 'Used', 'Limit', 'Used %', 'Projected', 'Limit reached'];
  const body = table([...head, ...(writable ? ['New limit'] : [])], [], 'Overrides and their use this month');
  const tbody = body.querySelector('tbody')!;
  rows.forEach((row, i) => {
    const cells: Array<Node | string> = [row.user, row.status.replace('_', ' '), row.used, row.limit];
    cells.push(percentBar(row), row.projected, row.limitDay);
    if (writable) {
      const input = el('input', { 'aria-label': `New limit for ${row.user}`, inputmode: 'numeric', value: '' });
      input.addEventListener('input', () => (input.value ? edits.set(i, input.value) : edits.delete(i)));
      cells.push(input);
    }
    tbody.append(el('tr', {}, ...cells.map((c) => el('td', { class: `status-${row.status}` }, c))));
  });
  const controls: Node[] = [];
  if (writable) {
    const dry = el('button', { type: 'button' }, 'Preview changes');
    const apply = el('button', { type: 'button', disabled: '' }, 'Apply');
    dry.addEventListener('click', () => void send(true, apply));
    apply.addEventListener('click', () => void send(false, apply));
    controls.push(dry, apply);
  } else {
    controls.push(el('p', {}, 'Read-only: budgets cannot be changed from here.'));
  }
  root.replaceChildren(
    el('h1', {}, 'Budgets'),
    el('p', { class: 'sub' }, note),
    el('div', { class: 'scroll' }, body),
    ...controls,
    preview,
    status,
  );
}

/** Through the host, as any other call: the server asks the user to confirm before it writes. */
async function send(dryRun: boolean, apply: HTMLButtonElement): Promise<void> {
  const overrides = [...edits].map(([i, limit]) => overrideOf(rows[i]!, limit));
  if (overrides.length === 0) return void (status.textContent = 'Type a new limit first.');
  status.textContent = dryRun ? 'Previewing…' : 'Applying…';
  const result = await app.callServerTool({ name: 'set_budget_overrides', arguments: { overrides, dry_run: dryRun } });
  const out = result.structuredContent as
    { entries?: Array<{ user: string; before: string | null; after: string; status: string }> } | undefined;
  preview.replaceChildren(
    ...(out?.entries ?? []).map((e) =>
      el(
        'p',
        {},
        `${e.user}: `,
        el('del', {}, e.before ?? 'none'),
        ' → ',
        el('ins', {}, e.after || 'cleared'),
        ` (${e.status})`,
      ),
    ),
  );
  const said = (result.content as Array<{ text?: string }> | undefined)?.map((c) => c.text ?? '').join(' ') ?? '';
  status.textContent = result.isError ? `Not applied: ${said}` : dryRun ? 'Preview ready: nothing changed yet.' : said;
  if (dryRun && !result.isError) apply.removeAttribute('disabled');
  else apply.setAttribute('disabled', '');
}

app.ontoolresult = (result) => {
  const { rows: read, note } = budgetRowsOf(result.structuredContent);
  rows = read;
  edits.clear();
  render(note);
};
void app.connect().then(() => followHostTheme(app));
