import * as Plot from '@observablehq/plot';
import { words } from './chart-builders.js';
import {
  SERIES,
  UNKNOWN,
  type AdoptionChart,
  type AdoptionPeriod,
  type AnomalyChart,
  type AnomalyPoint,
} from './history-builders.js';
import { dateOf, figure, legendOf, marginFor, PALETTE, valueMargin } from './plots.js';

interface Point {
  series: string;
  date: Date;
  value: number;
  partial: boolean;
}

/**
 * Adoption as lines: active people, and the new, returning and retained among them. A period not yet
 * complete is a hollow point on a dashed segment; the period where the store's history begins is marked,
 * since everyone is "new" there.
 */
function adoption(chart: AdoptionChart, width: number): HTMLElement {
  const points: Point[] = chart.periods.flatMap((p) =>
    // A count the answer leaves unknown (null: nothing to compare with yet) has no point.
    SERIES.flatMap((s) => {
      const count = p.counts[s];
      return count ? [{ series: words(s), date: dateOf(p.at), value: count.value, partial: p.partial }] : [];
    }),
  );
  const segments = SERIES.flatMap((s) => {
    const line = points.filter((p) => p.series === words(s));
    return line.slice(1).map((to, i) => ({ from: line[i]!, to, dashed: to.partial || line[i]!.partial }));
  });
  const link = (dashed: boolean) =>
    Plot.link(
      segments.filter((s) => s.dashed === dashed),
      {
        x1: (s) => s.from.date,
        y1: (s) => s.from.value,
        x2: (s) => s.to.date,
        y2: (s) => s.to.value,
        stroke: (s) => s.to.series,
        strokeWidth: 2,
        strokeDasharray: dashed ? '4 3' : undefined,
      },
    );
  const begins = chart.periods.filter((p) => p.historyBegins).map((p) => ({ date: dateOf(p.at) }));
  const tip = (p: AdoptionPeriod) =>
    [
      `${p.label}${p.partial ? ' (partial)' : ''}${p.historyBegins ? ' (history begins)' : ''}`,
      ...SERIES.map((s) => `${words(s)}: ${p.counts[s]?.shown ?? UNKNOWN}`),
    ].join('\n');
  const plot = Plot.plot({
    width,
    height: 260,
    marginLeft: valueMargin(points.map((p) => p.value)),
    marginRight: 24,
    x: { type: 'utc', label: null, inset: 8 },
    y: { grid: true, label: 'People', zero: true, nice: true },
    color: { type: 'ordinal', domain: SERIES.map(words), range: PALETTE },
    marks: [
      Plot.ruleY([0]),
      Plot.ruleX(begins, { x: 'date', stroke: 'var(--muted)', strokeDasharray: '2 3' }),
      Plot.text(begins, {
        x: 'date',
        frameAnchor: 'top',
        text: () => 'history begins',
        textAnchor: 'start',
        dx: 4,
        dy: 2,
        className: 'annotation',
      }),
      link(false),
      link(true),
      Plot.dot(
        points.filter((p) => !p.partial),
        { x: 'date', y: 'value', fill: 'series', r: 3 },
      ),
      Plot.dot(
        points.filter((p) => p.partial),
        { x: 'date', y: 'value', stroke: 'series', fill: 'var(--bg)', r: 3.5, strokeWidth: 1.5 },
      ),
      Plot.tip(
        chart.periods,
        Plot.pointerX({
          x: (p: AdoptionPeriod) => dateOf(p.at),
          y: (p: AdoptionPeriod) => p.counts.active!.value,
          title: tip,
        }),
      ),
    ],
  });
  const first = chart.periods[0]!;
  const last = chart.periods.at(-1)!;
  const summary = `${chart.title}: ${chart.periods.length} periods; active people ${first.counts.active!.shown} in ${first.label}, ${last.counts.active!.shown} in ${last.label}`;
  const notes = [
    chart.periods.some((p) => p.partial) ? 'Hollow points on dashed lines are periods not yet complete.' : '',
    begins.length ? 'History begins in the marked period, so everyone active there counts as new.' : '',
  ];
  return figure(chart.title, plot, summary, {
    legend: legendOf(plot, 'Series'),
    note: notes.filter(Boolean).join(' ') || undefined,
  });
}

/** A short horizontal dash, for the baseline an anomaly is measured against. */
const dash = {
  draw(context: CanvasPath, size: number) {
    const w = Math.sqrt(size) * 1.4;
    context.moveTo(-w, 0);
    context.lineTo(w, 0);
  },
};

/**
 * Anomalies as marked points: each at its value, with a dash at its baseline and a line between, coloured
 * by kind. The value axis is logarithmic, so that a ratio reads as a length whatever the unit (people,
 * credits or dollars), and anomalies of different sizes share one chart.
 */
function anomalies(chart: AnomalyChart, width: number): HTMLElement {
  // Several anomalies on one day sit side by side rather than on top of each other.
  const sameDay = new Map<number, number>();
  const points = chart.points.map((p) => {
    const n = sameDay.get(p.at) ?? 0;
    sameDay.set(p.at, n + 1);
    return { ...p, n };
  });
  const place = (p: AnomalyPoint & { n: number }) => {
    const count = sameDay.get(p.at)!;
    return dateOf(p.at + (count > 1 ? (p.n / (count - 1) - 0.5) * 0.6 : 0));
  };
  const numbers = points.flatMap((p) => [p.value.value, ...(p.baseline ? [p.baseline.value] : [])]);
  const log = numbers.every((v) => v > 0);
  const kinds = [...new Set(points.map((p) => p.kind))];
  const compared = points.filter((p) => p.baseline);
  const tip = (p: AnomalyPoint) =>
    `${p.date} · ${p.kind}\n${p.who}\nValue: ${p.value.shown}\nBaseline: ${p.baselineShown || 'none'}\nRatio: ${p.ratio || 'n/a'}`;
  const plot = Plot.plot({
    width,
    height: 280,
    marginLeft: Math.max(valueMargin(numbers), marginFor(['Value'], width)),
    marginRight: 24,
    x: { type: 'utc', label: null, inset: 16 },
    y: {
      type: log ? 'log' : 'symlog',
      grid: true,
      ticks: 6,
      inset: 8,
      label: `Value (${log ? 'log' : 'symlog'} scale)`,
    },
    color: { type: 'ordinal', domain: kinds, range: PALETTE },
    marks: [
      Plot.link(compared, { x: place, y1: (p) => p.baseline!.value, y2: (p) => p.value.value, stroke: 'kind' }),
      Plot.dot(compared, { x: place, y: (p) => p.baseline!.value, symbol: dash, stroke: 'kind', strokeWidth: 2, r: 5 }),
      Plot.dot(points, { x: place, y: (p) => p.value.value, fill: 'kind', stroke: 'var(--bg)', r: 4.5 }),
      Plot.tip(points, Plot.pointer({ x: place, y: (p) => p.value.value, title: tip })),
    ],
  });
  const summary = `${chart.title}: ${points.length} anomalies of ${kinds.length} kinds; the largest, ${points[0]!.who} on ${points[0]!.date}: ${points[0]!.value.shown} against a baseline of ${points[0]!.baselineShown || 'none'}`;
  const note =
    'Each point is a value; the dash below or above it is its baseline, and the line between them the excess.';
  return figure(chart.title, plot, summary, { legend: legendOf(plot, 'Kinds of anomaly'), note });
}

export const historyPlots = { adoption, anomalies };
