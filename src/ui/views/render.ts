import { historyPlots } from './history-plots.js';
import type { ViewModel } from './model.js';
import { plots } from './plots.js';

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

const numeric = (cell: string) => /^-?[\d.,]+%?$/.test(cell);

export function table(columns: string[], rows: string[][], caption: string, attrs: Record<string, string> = {}) {
  const cell = (text: string) => el('td', numeric(text) ? { class: 'num' } : {}, text);
  return el(
    'table',
    attrs,
    el('caption', {}, caption),
    el('thead', {}, el('tr', {}, ...columns.map((c) => el('th', { scope: 'col' }, c)))),
    el('tbody', {}, ...rows.map((r) => el('tr', {}, ...r.map(cell)))),
  );
}

/** The width the charts are drawn at: the view's own, less its padding. */
export const widthOf = (root: HTMLElement) => Math.max(320, Math.floor(root.clientWidth || 640));

export function renderUsage(root: HTMLElement, model: ViewModel): void {
  if (model.notice !== undefined)
    return root.replaceChildren(el('h1', {}, model.title), el('p', { role: 'status' }, model.notice));
  const width = widthOf(root);
  const draw = (chart: ViewModel['charts'][number]): HTMLElement => {
    if (chart.kind === 'adoption') return historyPlots.adoption(chart, width);
    if (chart.kind === 'anomalies') return historyPlots.anomalies(chart, width);
    return plots[chart.kind](chart, width);
  };
  root.replaceChildren(
    el('h1', {}, model.title),
    el('p', { class: 'sub' }, model.subtitle),
    ...model.charts.map(draw),
    model.charts.length === 0 ? el('p', {}, 'Nothing to chart in this answer.') : '',
    ...model.tables.map((t) => el('div', { class: 'scroll' }, table(t.columns, t.rows, t.caption))),
  );
}
