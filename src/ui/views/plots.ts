import * as Plot from '@observablehq/plot';
import type { Chart, Mark } from './chart-builders.js';

/**
 * Charts drawn with Observable Plot: SVG with axis ticks, gridlines, a tooltip on pointing, and a legend
 * where series are several. Every label and value drawn is the text the answer gave (`shown`); the numbers
 * only place the marks. Each chart is one image labelled with what it shows; the tables hold every value.
 */

/** Colours that read on light and dark backgrounds alike; one series alone takes the host's accent. */
export const PALETTE = ['#4e79a7', '#f28e2c', '#59a14f', '#e15759', '#b07aa1', '#76b7b2', '#edc949', '#9c755f'];
export const ACCENT = 'var(--accent)';
const DAY = 86_400_000;

export const dateOf = (day: number) => new Date(day * DAY);

/** Room for the longest of the labels (11px system-ui, about 6.5px a character), at most 45% of the width. */
export const marginFor = (labels: string[], width: number, least = 40) =>
  Math.min(
    Math.floor(width * 0.45),
    Math.max(least, Math.ceil(Math.max(0, ...labels.map((l) => l.length)) * 6.5) + 14),
  );

/** Room for the value axis' tick labels (grouped thousands). */
/** Horizontal bars, one row each: room for the labels on the left and the amounts written past the bars. */
export const barFrame = (labels: string[], shown: string[], width: number) => ({
  width,
  height: labels.length * 24 + 36,
  marginTop: 30,
  marginBottom: 6,
  marginLeft: marginFor(labels, width),
  marginRight: marginFor(shown, width, 20),
});

export const valueMargin = (values: number[]) =>
  marginFor([Math.round(Math.max(0, ...values.map(Math.abs))).toLocaleString('en-US')], Infinity);

/** The figure: its caption, its legend, the chart as one labelled image, and a note on how to read it. */
export function figure(
  caption: string,
  chart: SVGSVGElement | HTMLElement,
  summary: string,
  extra: { legend?: Element; note?: string } = {},
): HTMLElement {
  chart.setAttribute('role', 'img');
  chart.setAttribute('aria-label', summary);
  chart.classList.add('chart');
  const out = document.createElement('figure');
  const head = document.createElement('figcaption');
  head.textContent = caption;
  out.append(head);
  if (extra.legend) out.append(extra.legend);
  out.append(chart);
  if (extra.note) {
    const note = document.createElement('p');
    note.className = 'note';
    note.textContent = extra.note;
    out.append(note);
  }
  return out;
}

/** A legend of swatches for the plot's colour scale. */
export function legendOf(plot: ReturnType<typeof Plot.plot>, label: string): Element | undefined {
  const legend = plot.legend('color', { label: null, swatchSize: 12 });
  legend?.setAttribute('role', 'group');
  legend?.setAttribute('aria-label', label);
  legend?.classList.add('legend');
  return legend;
}

function trend(chart: Chart, width: number): HTMLElement {
  const data = chart.marks.map((m, i) => ({ ...m, date: dateOf(m.at ?? i) }));
  const into = data.flatMap((d, i) => (d.partial && i > 0 ? [{ from: data[i - 1]!, to: d }] : []));
  const tip = (d: Mark) => `${d.label}\n${chart.measure ?? 'Value'}: ${d.shown}`;
  const plot = Plot.plot({
    width,
    height: 220,
    marginLeft: valueMargin(data.map((d) => d.value)),
    x: { type: 'utc', label: null },
    y: { grid: true, label: chart.measure ?? null, zero: true, nice: true },
    marks: [
      Plot.ruleY([0]),
      Plot.lineY(
        data.filter((d) => !d.partial),
        { x: 'date', y: 'value', stroke: ACCENT, strokeWidth: 2 },
      ),
      Plot.link(into, {
        x1: (s) => s.from.date,
        y1: (s) => s.from.value,
        x2: (s) => s.to.date,
        y2: (s) => s.to.value,
        stroke: ACCENT,
        strokeWidth: 2,
        strokeDasharray: '4 3',
      }),
      Plot.dot(
        data.filter((d) => !d.partial),
        { x: 'date', y: 'value', r: 2.5, fill: ACCENT },
      ),
      Plot.dot(
        data.filter((d) => d.partial),
        { x: 'date', y: 'value', r: 3.5, stroke: ACCENT, fill: 'var(--bg)', strokeWidth: 1.5 },
      ),
      Plot.tip(data, Plot.pointerX({ x: 'date', y: 'value', title: tip })),
    ],
  });
  const first = chart.marks[0];
  const last = chart.marks.at(-1);
  const summary = `${chart.title}: ${chart.marks.length} ${chart.unit ?? 'day'}s, from ${first?.shown} on ${first?.label} to ${last?.shown} on ${last?.label}`;
  const note = into.length ? 'The hollow point, on a dashed line, is a day not yet complete.' : undefined;
  return figure(chart.title, plot, summary, { note });
}

/** Bars in the answer's own order; placed by index, so that two rows with one label stay two bars. */
function ranking(chart: Chart, width: number): HTMLElement {
  const data = chart.marks.map((m, i) => ({ ...m, i }));
  const labels = data.map((d) => d.label);
  const plot = Plot.plot({
    ...barFrame(
      labels,
      data.map((d) => d.shown),
      width,
    ),
    x: { grid: true, label: chart.measure ?? null, nice: true, axis: 'top' },
    y: { domain: data.map((d) => d.i), label: null, tickFormat: (i: number) => labels[i] ?? '', tickSize: 0 },
    marks: [
      Plot.barX(data, { x: 'value', y: 'i', fill: ACCENT, insetTop: 3, insetBottom: 3 }),
      Plot.ruleX([0]),
      Plot.text(data, { x: 'value', y: 'i', text: 'shown', textAnchor: 'start', dx: 4, className: 'values' }),
      Plot.tip(data, Plot.pointerY({ x: 'value', y: 'i', title: (d: Mark) => `${d.label}\n${d.shown}` })),
    ],
  });
  const summary = `${chart.title}: ${chart.marks.map((m) => `${m.label} ${m.shown}`).join(', ')}`;
  return figure(chart.title, plot, summary);
}

/** Parts of a whole, stacked in one bar; the legend names each part with its amount. */
function split(chart: Chart, width: number): HTMLElement {
  const data = chart.marks.map((m, i) => ({ ...m, i, value: Math.max(0, m.value) }));
  const plot = Plot.plot({
    width,
    height: 72,
    marginLeft: 12,
    marginRight: 24,
    x: { grid: true, label: chart.measure ?? null, nice: true },
    y: { axis: null },
    color: {
      type: 'ordinal',
      domain: data.map((d) => d.i),
      range: PALETTE,
      tickFormat: (i: number) => `${data[i]!.label} ${data[i]!.shown}`,
    },
    marks: [
      Plot.barX(
        data,
        Plot.stackX({
          x: 'value',
          fill: 'i',
          order: null,
          stroke: 'var(--bg)',
          title: (d: Mark) => `${d.label}\n${d.shown}`,
          tip: true,
        }),
      ),
    ],
  });
  const summary = `${chart.title}: ${chart.marks.map((m) => `${m.label} ${m.shown}`).join(', ')}`;
  return figure(chart.title, plot, summary, { legend: legendOf(plot, `Parts of ${chart.title}`) });
}

export const plots = { trend, ranking, split };
