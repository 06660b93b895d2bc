import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWS } from '../../src/ui/views.js';
import { launchChromium, withBrowserTimeouts } from '../helpers/browser.js';
import { legendEntries, showInHost, showResultInHost, tipLines } from '../helpers/apps-host.js';
import { storedHarness } from '../helpers/history.js';
import { harness, type Harness } from '../helpers/mcp.js';

withBrowserTimeouts();

// get_adoption and find_anomalies are built elsewhere: until they are merged, these tests hand the usage view
// structuredContent that follows the Interface exactly (the real-answer tests come with the tools).
let browser: Browser;
let h: Harness;
beforeAll(async () => {
  browser = await launchChromium();
  h = await harness({ sim: { users: 10 } });
});
afterAll(async () => {
  await h?.close();
  await browser?.close();
});

type Shown = Awaited<ReturnType<typeof showResultInHost>>;
async function viewing(
  tool: string,
  structuredContent: Record<string, unknown>,
  check: (shown: Shown) => Promise<void>,
  hostContext: Record<string, unknown> = {},
): Promise<void> {
  expect(VIEWS.usage.tools).toContain(tool);
  const result = { content: [{ type: 'text', text: `${tool} fixture` }], structuredContent };
  const shown = await showResultInHost(
    browser,
    h.mcp,
    VIEWS.usage.uri,
    { name: tool, inputSchema: { type: 'object' } },
    {},
    result,
    hostContext,
  );
  try {
    await check(shown);
  } finally {
    await shown.page.close();
  }
}

const rowsOf = (shown: Shown, caption: string) =>
  shown.view
    .locator('table', { has: shown.view.locator('caption', { hasText: caption }) })
    .locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));

const period = (start: string, end: string, counts: number[], partial = false, history_begins = false) => {
  const [active, fresh, returning, retained] = counts;
  return { start_date: start, end_date: end, active, new: fresh, returning, retained, partial, history_begins };
};
const ADOPTION = {
  granularity: 'week',
  start_date: '2026-10-14',
  end_date: '2026-11-20',
  periods: [
    period('2026-10-12', '2026-10-18', [41, 41, 0, 0], true, true),
    period('2026-10-19', '2026-10-25', [52, 9, 43, 30]),
    period('2026-10-26', '2026-11-01', [58, 7, 51, 8]),
    period('2026-11-02', '2026-11-08', [61, 5, 56, 6]),
    period('2026-11-09', '2026-11-15', [66, 6, 60, 4]),
    period('2026-11-16', '2026-11-22', [49, 2, 47, 5], true),
  ],
};

const ANOMALIES = {
  start_date: '2026-10-22',
  end_date: '2026-11-20',
  anomalies: [
    {
      kind: 'identity_credits',
      service_account_name: 'docs-generator',
      date: '2026-11-18',
      value: '20512.37',
      baseline: '1012.05',
      ratio: 20.27,
    },
    {
      kind: 'model_cost',
      scope: 'claude-opus-4-1',
      date: '2026-11-12',
      value: '812.40',
      baseline: '97.10',
      ratio: 8.37,
    },
    { kind: 'new_model', scope: 'gpt-5', date: '2026-11-12', value: '310.25', baseline: '0', ratio: null },
    {
      kind: 'identity_cost',
      user_email: 'ana@example.com',
      date: '2026-11-05',
      value: '96.125',
      baseline: '11.5',
      ratio: 8.36,
    },
    // A team's day against its own baseline (group_by): the table names the team.
    {
      kind: 'group_credits',
      group: 'Engineering/Platform',
      date: '2026-11-04',
      value: '5120.5',
      baseline: '1710',
      ratio: 2.99,
    },
    {
      kind: 'organization_active_users',
      scope: 'organization',
      date: '2026-11-03',
      value: 31,
      baseline: 64,
      ratio: 0.48,
    },
  ],
};

describe('adoption, drawn as lines in the usage view', () => {
  it('every period and count as the answer gave them; partial periods hollow and dashed; history begins marked', async () => {
    await viewing('get_adoption', ADOPTION, async (shown) => {
      const periods = ADOPTION.periods;
      await expect.poll(() => rowsOf(shown, 'Adoption by period')).toHaveLength(periods.length);
      expect(await rowsOf(shown, 'Adoption by period')).toEqual(
        periods.map((p) => [
          `${p.start_date} to ${p.end_date}`,
          [p.partial ? 'partial' : '', p.history_begins ? 'history begins (everyone is new)' : '']
            .filter(Boolean)
            .join('; '),
          String(p.active),
          String(p.new),
          String(p.returning),
          String(p.retained),
        ]),
      );
      expect(await shown.view.locator('figcaption').allTextContents()).toEqual(['People by week']);
      const chart = shown.view.locator('svg[role="img"]');
      expect(await chart.getAttribute('aria-label')).toBe(
        `People by week: 6 periods; active people 41 in 2026-10-12 to 2026-10-18, 49 in 2026-11-16 to 2026-11-22`,
      );
      expect(await legendEntries(shown.view)).toEqual(['Active', 'New', 'Returning', 'Retained']);
      // Four series: a point each per period, the two partial periods' hollow; their segments dashed.
      expect(await chart.locator('circle').count()).toBe(4 * periods.length);
      expect(await chart.locator('[fill="var(--bg)"] circle, circle[fill="var(--bg)"]').count()).toBe(4 * 2);
      expect(await chart.locator('[stroke-dasharray="4 3"] path, path[stroke-dasharray="4 3"]').count()).toBe(4 * 2);
      expect(await chart.locator('.annotation text').allTextContents()).toEqual(['history begins']);
      // Value axis with ticks and gridlines, time axis with ticks.
      expect(await chart.locator('[aria-label="y-axis tick label"] text').count()).toBeGreaterThan(3);
      expect(await chart.locator('[aria-label="y-grid"] line').count()).toBeGreaterThan(3);
      expect(await chart.locator('[aria-label="x-axis tick label"] text').count()).toBeGreaterThan(2);
      // Pointing at the last period shows its exact counts.
      await chart.locator('circle').last().hover();
      const last = periods.at(-1)!;
      await expect
        .poll(() => tipLines(chart))
        .toEqual([
          `${last.start_date} to ${last.end_date} (partial)`,
          `Active: ${last.active}`,
          `New: ${last.new}`,
          `Returning: ${last.returning}`,
          `Retained: ${last.retained}`,
        ]);
      await shown.screenshot('adoption');
    });
  });

  it('by month, with history only a few weeks old: one period, both partial and where history begins', async () => {
    const only = period('2026-11-01', '2026-11-30', [73, 73, 0, 0], true, true);
    await viewing('get_adoption', { granularity: 'month', periods: [only] }, async (shown) => {
      await expect.poll(() => shown.view.locator('figcaption').allTextContents()).toEqual(['People by month']);
      expect(await rowsOf(shown, 'Adoption by period')).toEqual([
        ['2026-11-01 to 2026-11-30', 'partial; history begins (everyone is new)', '73', '73', '0', '0'],
      ]);
      const chart = shown.view.locator('svg[role="img"]');
      expect(await chart.locator('[fill="var(--bg)"] circle, circle[fill="var(--bg)"]').count()).toBe(4);
      expect(await chart.locator('.annotation text').allTextContents()).toEqual(['history begins']);
    });
  });

  it('reads in the dark theme', async () => {
    const dark = { theme: 'dark', styles: { variables: { '--color-background-primary': 'rgb(24, 24, 27)' } } };
    await viewing(
      'get_adoption',
      ADOPTION,
      async (shown) => {
        await expect.poll(() => shown.view.locator('svg[role="img"]').count()).toBe(1);
        const bg = await shown.view
          .locator('body')
          .evaluate((b) => (globalThis as any).getComputedStyle(b).backgroundColor);
        expect(bg).toBe('rgb(24, 24, 27)');
        await shown.screenshot('adoption-dark');
      },
      dark,
    );
  });
});

describe('anomalies, drawn as marked points in the usage view', () => {
  it('each anomaly a point at its value with a dash at its baseline, coloured by kind; the table holds every value', async () => {
    await viewing('find_anomalies', ANOMALIES, async (shown) => {
      const list = ANOMALIES.anomalies as Array<Record<string, unknown>>;
      const caption = 'Every anomaly, largest excess first';
      await expect.poll(() => rowsOf(shown, caption)).toHaveLength(list.length);
      const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
      expect(await rowsOf(shown, caption)).toEqual(
        list.map((a) => [
          a.date,
          a.kind,
          a.user_email ?? a.service_account_name ?? a.group ?? a.scope,
          text(a.value),
          text(a.baseline),
          text(a.ratio),
        ]),
      );
      expect(await shown.view.locator('h1').textContent()).toBe('Anomalies');
      const chart = shown.view.locator('svg[role="img"]');
      expect(await chart.getAttribute('aria-label')).toBe(
        'Anomalies: value against its baseline, by day: 6 anomalies of 6 kinds; the largest, docs-generator on 2026-11-18: 20512.37 against a baseline of 1012.05',
      );
      expect(await legendEntries(shown.view)).toEqual([...new Set(list.map((a) => a.kind))]);
      // A value point for each; a baseline dash for each that has a baseline (a first appearance has none).
      const withBaseline = list.filter((a) => Number(a.baseline) > 0).length;
      expect(await chart.locator('circle').count()).toBe(list.length);
      expect(await chart.locator('path[d^="M-"]').count()).toBe(withBaseline);
      const colours = await chart.locator('circle').evaluateAll((cs) => cs.map((c) => c.getAttribute('fill')));
      expect(new Set(colours).size).toBe(new Set(list.map((a) => a.kind)).size);
      expect(await chart.locator('[aria-label="y-axis label"]').textContent()).toMatch(/Value \(log scale\)/);
      await chart.locator('circle').first().hover();
      await expect
        .poll(() => tipLines(chart))
        .toEqual([
          '2026-11-18 · identity_credits',
          'docs-generator',
          'Value: 20512.37',
          'Baseline: 1012.05',
          'Ratio: 20.27',
        ]);
      await shown.screenshot('anomalies');
    });
  });

  it('a value of zero (everyone missing) still has its place: the axis turns symmetric-log', async () => {
    const zero = {
      anomalies: [
        {
          kind: 'organization_active_users',
          scope: 'organization',
          date: '2026-11-03',
          value: 0,
          baseline: 64,
          ratio: 0,
        },
        {
          kind: 'organization_credits',
          scope: 'organization',
          date: '2026-11-04',
          value: '0.00',
          baseline: '5120.50',
          ratio: 0,
        },
      ],
    };
    await viewing('find_anomalies', zero, async (shown) => {
      const chart = shown.view.locator('svg[role="img"]');
      await expect.poll(() => chart.locator('circle').count()).toBe(2);
      expect(await chart.locator('[aria-label="y-axis label"]').textContent()).toMatch(/symlog/);
      expect(await rowsOf(shown, 'Every anomaly')).toEqual([
        ['2026-11-03', 'organization_active_users', 'organization', '0', '64', '0'],
        ['2026-11-04', 'organization_credits', 'organization', '0.00', '5120.50', '0'],
      ]);
    });
  });

  it('no anomalies: says there is nothing to chart, and draws no empty chart', async () => {
    await viewing(
      'find_anomalies',
      { start_date: '2026-10-22', end_date: '2026-11-20', anomalies: [] },
      async (shown) => {
        await expect.poll(() => shown.view.locator('main').textContent()).toContain('Nothing to chart in this answer.');
        expect(await shown.view.locator('svg[role="img"], table').count()).toBe(0);
      },
    );
  });
});

describe('get_adoption, a real answer from the history store in the usage view', () => {
  it('draws every known count as a point and shows an unknown one (null) as —, as the answer gave them', async () => {
    const stored = await storedHarness({ historyDays: 35, historyMonths: 2 }, { sim: { users: 60 } });
    try {
      const shown = await showInHost(browser, stored.mcp, 'get_adoption', { granularity: 'month' });
      try {
        const periods = shown.result.structuredContent.periods as Array<Record<string, any>>;
        expect(periods.length).toBeGreaterThanOrEqual(3);
        const cell = (v: unknown) => (v === null ? '—' : String(v));
        await expect.poll(() => rowsOf(shown, 'Adoption by period')).toHaveLength(periods.length);
        const rows = await rowsOf(shown, 'Adoption by period');
        expect(rows.map((r) => r.slice(2))).toEqual(
          periods.map((p) => [p.active, p.new, p.returning, p.retained].map(cell)),
        );
        // The answer leaves some counts unknown (after history begins), and those have no point.
        const counts = periods.flatMap((p) => [p.active, p.new, p.returning, p.retained]);
        expect(counts).toContain(null);
        const chart = shown.view.locator('svg[role="img"]');
        expect(await chart.locator('circle').count()).toBe(counts.filter((c) => c !== null).length);
        expect(await chart.locator('.annotation text').allTextContents()).toEqual(['history begins']);
        await shown.screenshot('adoption-real');
      } finally {
        await shown.page.close();
      }
    } finally {
      await stored.close();
    }
  }, 60_000);
});
