import type { Chart, Mark } from './chart-builders.js';
import type { ViewModel } from './model.js';

const SVG = 'http://www.w3.org/2000/svg';
const W = 640;

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

function svg(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Each chart is one image with a label that says what it shows; the table below holds every value. */
function frame(chart: Chart, height: number): SVGElement {
  const first = chart.marks[0];
  const last = chart.marks.at(-1);
  const summary =
    chart.kind === 'trend'
      ? `${chart.title}: ${chart.marks.length} ${chart.unit ?? 'day'}s, from ${first?.shown} on ${first?.label} to ${last?.shown} on ${last?.label}`
      : `${chart.title}: ${chart.marks.map((m) => `${m.label} ${m.shown}`).join(', ')}`;
  return svg('svg', { viewBox: `0 0 ${W} ${height}`, role: 'img', 'aria-label': summary, class: 'chart' });
}

function trend(chart: Chart): SVGElement {
  const h = 180;
  const root = frame(chart, h);
  const max = Math.max(...chart.marks.map((m) => m.value), 1);
  // Placed by date: a day without data leaves its gap instead of pulling the next point closer.
  const first = chart.marks[0]?.at ?? 0;
  const span = Math.max(1, (chart.marks.at(-1)?.at ?? first) - first);
  const x = (m: Mark, i: number) => 10 + ((m.at ?? first + i) - first) * ((W - 20) / span);
  const y = (m: Mark) => h - 24 - (m.value / max) * (h - 44);
  const points = chart.marks.map((m, i) => `${x(m, i)},${y(m)}`).join(' ');
  root.append(svg('polyline', { points, class: 'line' }));
  chart.marks.forEach((m, i) => {
    const dot = svg('circle', { cx: x(m, i), cy: y(m), r: 2.5, class: 'dot' });
    dot.append(svg('title', {}, `${m.label}: ${m.shown}`));
    root.append(dot);
  });
  root.append(svg('text', { x: 10, y: h - 6, class: 'axis' }, chart.marks[0]?.label ?? ''));
  root.append(
    svg('text', { x: W - 10, y: h - 6, class: 'axis', 'text-anchor': 'end' }, chart.marks.at(-1)?.label ?? ''),
  );
  root.append(
    svg('text', { x: 10, y: 14, class: 'axis' }, `max ${chart.marks.find((m) => m.value === max)?.shown ?? ''}`),
  );
  return root;
}

function ranking(chart: Chart): SVGElement {
  const row = 22;
  const root = frame(chart, chart.marks.length * row + 4);
  const max = Math.max(...chart.marks.map((m) => m.value), 1);
  chart.marks.forEach((m, i) => {
    const top = i * row + 2;
    root.append(svg('text', { x: 0, y: top + 15, class: 'label' }, m.label));
    root.append(
      svg('rect', { x: 260, y: top + 3, width: Math.max(1, (m.value / max) * 280), height: 15, class: 'bar' }),
    );
    root.append(svg('text', { x: W, y: top + 15, class: 'value', 'text-anchor': 'end' }, m.shown));
  });
  return root;
}

function split(chart: Chart): SVGElement {
  const root = frame(chart, 36 + Math.ceil(chart.marks.length / 2) * 20);
  const total = chart.marks.reduce((sum, m) => sum + Math.max(0, m.value), 0) || 1;
  let x = 0;
  chart.marks.forEach((m, i) => {
    const width = (Math.max(0, m.value) / total) * W;
    const part = svg('rect', { x, y: 0, width, height: 20, class: `part part-${i % 6}` });
    part.append(svg('title', {}, `${m.label}: ${m.shown}`));
    root.append(part);
    x += width;
    const col = i % 2;
    const line = Math.floor(i / 2);
    root.append(svg('rect', { x: col * 320, y: 30 + line * 20, width: 10, height: 10, class: `part part-${i % 6}` }));
    root.append(svg('text', { x: col * 320 + 14, y: 39 + line * 20, class: 'label' }, `${m.label} ${m.shown}`));
  });
  return root;
}

export function table(columns: string[], rows: string[][], caption: string): HTMLTableElement {
  return el(
    'table',
    {},
    el('caption', {}, caption),
    el('thead', {}, el('tr', {}, ...columns.map((c) => el('th', { scope: 'col' }, c)))),
    el('tbody', {}, ...rows.map((r) => el('tr', {}, ...r.map((cell) => el('td', {}, cell))))),
  );
}

export function renderUsage(root: HTMLElement, model: ViewModel): void {
  const draw = { trend, ranking, split };
  if (model.notice !== undefined)
    return root.replaceChildren(el('h1', {}, model.title), el('p', { role: 'status' }, model.notice));
  root.replaceChildren(
    el('h1', {}, model.title),
    el('p', { class: 'sub' }, model.subtitle),
    ...model.charts.map((c) => el('figure', {}, el('figcaption', {}, c.title), draw[c.kind](c))),
    model.charts.length === 0 ? el('p', {}, 'Nothing to chart in this answer.') : '',
    table(model.table.columns, model.table.rows, 'Every value in the charts above'),
  );
}
