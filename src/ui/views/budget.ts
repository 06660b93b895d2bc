import { App } from '@modelcontextprotocol/ext-apps';
import { budgetRowsOf, overrideOf, type BudgetRow } from './budget-model.js';
import { followHostTheme } from './host-theme.js';
import { budgetChart } from './budget-chart.js';
import { el, table, widthOf } from './render.js';

type Entry = { user: string; before: string | null; after: string; status: string; reason?: string };

// The server says, in the page it serves, whether this view may edit: not on a read-only server or login.
const writable = document.documentElement.dataset.writable === 'true';
const root = document.getElementById('app')!;
const app = new App({ name: 'org-analytics budget view', version: '1.0.0' });
let rows: BudgetRow[] = [];
let note = '';
/** Row → new limit ('' clears). */
const edits = new Map<number, string>();
/** What the last preview showed: Apply sends exactly this, and any edit since withdraws it. */
let previewed: Array<Record<string, string | null>> | undefined;
const status = el('p', { role: 'status' });
const preview = el('div', { class: 'diff' });
const apply = el('button', { type: 'button', disabled: '' }, 'Apply');

const percentText = (row: BudgetRow) => (row.percent === null ? '' : `${row.percent}%`);

function edited(): void {
  previewed = undefined;
  apply.setAttribute('disabled', '');
  preview.replaceChildren();
}

function editor(row: BudgetRow, i: number): Node {
  const input = el('input', { 'aria-label': `New limit for ${row.user}`, inputmode: 'numeric' });
  const clear = el('input', { type: 'checkbox', 'aria-label': `Clear the limit for ${row.user}` });
  input.addEventListener('input', () => {
    if (input.value.trim() !== '') edits.set(i, input.value.trim());
    else edits.delete(i);
    edited();
  });
  clear.addEventListener('change', () => {
    input.disabled = clear.checked;
    if (clear.checked) edits.set(i, '');
    else if (input.value.trim() !== '') edits.set(i, input.value.trim());
    else edits.delete(i);
    edited();
  });
  return el('span', {}, input, el('label', {}, clear, ' clear'));
}

function render(): void {
  const head = ['Who', 'Status', 'Used', 'Limit', 'Used %', 'Projected', 'Limit reached'];
  const body = table([...head, ...(writable ? ['New limit'] : [])], [], 'Overrides and their use this month', {
    class: 'overrides',
  });
  const tbody = body.querySelector('tbody')!;
  rows.forEach((row, i) => {
    const cells: Array<Node | string> = [row.user, row.status.replace('_', ' '), row.used, row.limit];
    cells.push(percentText(row), row.projected, row.limitDay);
    if (writable) cells.push(editor(row, i));
    tbody.append(el('tr', {}, ...cells.map((c) => el('td', { class: `status-${row.status}` }, c))));
  });
  const controls: Node[] = [];
  if (writable) {
    const dry = el('button', { type: 'button' }, 'Preview changes');
    dry.addEventListener('click', () => void send(true));
    controls.push(dry, apply);
  } else {
    controls.push(el('p', {}, 'Read-only: budgets cannot be changed from here.'));
  }
  const chart = budgetChart(rows, widthOf(root));
  const parts = [
    el('h1', {}, 'Budgets'),
    el('p', { class: 'sub' }, note),
    chart ?? '',
    el('div', { class: 'scroll' }, body),
  ];
  root.replaceChildren(...parts, ...controls, preview, status);
}

/** Through the host, as any other call: the server asks the user to confirm before it writes. */
async function send(dryRun: boolean): Promise<void> {
  const overrides = dryRun ? [...edits].map(([i, limit]) => overrideOf(rows[i]!, limit)) : previewed;
  if (!overrides?.length) return void (status.textContent = 'Type a new limit (or tick clear) first.');
  status.textContent = dryRun ? 'Previewing…' : 'Applying…';
  apply.setAttribute('disabled', '');
  const result = await app.callServerTool({ name: 'set_budget_overrides', arguments: { overrides, dry_run: dryRun } });
  const out = result.structuredContent as { entries?: Entry[]; counts?: Record<string, number> } | undefined;
  const entries = out?.entries ?? [];
  preview.replaceChildren(
    ...entries.map((e) =>
      el(
        'p',
        {},
        `${e.user}: `,
        el('del', {}, e.before ?? 'none'),
        ' → ',
        el('ins', {}, e.after || 'cleared'),
        ` (${e.status.replace('_', ' ')}${e.reason ? `: ${e.reason}` : ''})`,
      ),
    ),
  );
  const said = (result.content as Array<{ text?: string }> | undefined)?.map((c) => c.text ?? '').join(' ') ?? '';
  const counts = out?.counts ?? {};
  const writes = (counts.new ?? 0) + (counts.changed ?? 0) + (counts.cleared ?? 0);
  if (result.isError) status.textContent = `Not applied: ${said}`;
  else if (dryRun) status.textContent = writes ? `Preview: ${said}` : `Nothing would be written. ${said}`;
  else status.textContent = said;
  if (dryRun && !result.isError && writes > 0) {
    previewed = overrides;
    apply.removeAttribute('disabled');
  }
  if (!dryRun && !result.isError) applied(entries, counts.applied ?? 0);
}

/**
 * The limits just written, in place; use and projections stay as of the last read, and the note says so.
 * The answer has rows for a bounded number of entries: past them, the note says to reload for the rest.
 */
function applied(entries: Entry[], appliedCount: number): void {
  const listed = entries.filter((x) => x.status === 'applied');
  for (const e of listed) {
    const row = rows.find((r) => r.user === e.user);
    if (row) row.limit = e.after || 'cleared';
  }
  edits.clear();
  previewed = undefined;
  const message = status.textContent;
  const unlisted = appliedCount - listed.length;
  const rest = unlisted > 0 ? ` ${unlisted} more were applied; reload the view to see their limits.` : '';
  note = `${note} Limits updated just now; use and projections are as of the last read.${rest}`.trim();
  render();
  status.textContent = message;
}

app.ontoolresult = (result) => {
  const body = result.structuredContent as { complete?: boolean; pending?: { message?: string } } | undefined;
  if (result.isError || body?.complete === false) {
    const text = (result.content as Array<{ text?: string }> | undefined)?.map((c) => c.text ?? '').join(' ');
    root.replaceChildren(el('h1', {}, 'Budgets'), el('p', { role: 'status' }, body?.pending?.message ?? text ?? ''));
    return;
  }
  ({ rows, note } = budgetRowsOf(result.structuredContent));
  edits.clear();
  previewed = undefined;
  render();
};
apply.addEventListener('click', () => void send(false));
void app.connect().then(() => followHostTheme(app));
