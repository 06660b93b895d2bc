import * as Plot from '@observablehq/plot';
import type { BudgetRow } from './budget-model.js';
import { barFrame, figure, legendOf } from './plots.js';

const SHOWN = 20;
const STATUS = { ok: 'var(--ok)', at_risk: 'var(--warn)', over: 'var(--danger)' } as Record<string, string>;

/**
 * The overrides nearest their limit (the twenty most used, as a share of the limit), coloured by status,
 * with a rule at the limit itself. Every override, and every exact amount, is in the table below.
 */
export function budgetChart(rows: BudgetRow[], width: number): HTMLElement | undefined {
  const data = rows
    .filter((r): r is BudgetRow & { percent: number } => r.percent !== null)
    .sort((a, b) => b.percent - a.percent)
    .slice(0, SHOWN)
    .map((r, i) => ({ ...r, i, shown: `${r.percent}%` }));
  if (data.length === 0) return undefined;
  const statuses = [...new Set(data.map((d) => d.status))];
  const labels = data.map((d) => d.user);
  const plot = Plot.plot({
    ...barFrame(
      labels,
      data.map((d) => d.shown),
      width,
    ),
    x: {
      grid: true,
      axis: 'top',
      label: 'Share of the limit used (%)',
      domain: [0, Math.max(100, ...data.map((d) => d.percent))],
    },
    y: { domain: data.map((d) => d.i), label: null, tickFormat: (i: number) => labels[i] ?? '', tickSize: 0 },
    color: {
      type: 'ordinal',
      domain: statuses,
      range: statuses.map((s) => STATUS[s] ?? 'var(--accent)'),
      tickFormat: (s: string) => s.replace('_', ' '),
    },
    marks: [
      Plot.barX(data, { x: 'percent', y: 'i', fill: 'status', insetTop: 3, insetBottom: 3 }),
      Plot.ruleX([0]),
      Plot.ruleX([100], { stroke: 'var(--fg)', strokeDasharray: '3 3' }),
      Plot.text(data, { x: 'percent', y: 'i', text: 'shown', textAnchor: 'start', dx: 4, className: 'values' }),
      Plot.tip(
        data,
        Plot.pointerY({
          x: 'percent',
          y: 'i',
          title: (d: BudgetRow) => `${d.user}\nUsed ${d.used} of ${d.limit} (${d.percent}%)\nProjected ${d.projected}`,
        }),
      ),
    ],
  });
  const more = rows.length - data.length;
  const title = `Share of the limit used${more > 0 ? `: the ${data.length} most used` : ''}`;
  const summary = `${title}: ${data.map((d) => `${d.user} ${d.shown}`).join(', ')}`;
  const note = 'The dashed line is the limit.' + (more > 0 ? ` The table lists all ${rows.length}.` : '');
  return figure(title, plot, summary, { legend: legendOf(plot, 'Statuses'), note });
}
