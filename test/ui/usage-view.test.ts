import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, withBrowserTimeouts } from '../helpers/browser.js';
import { legendEntries, showInHost, tipLines } from '../helpers/apps-host.js';
import { harness, type Harness } from '../helpers/mcp.js';

withBrowserTimeouts();

let browser: Browser;
let h: Harness;
beforeAll(async () => {
  browser = await launchChromium();
  h = await harness({ sim: { users: 120 } });
});
afterAll(async () => {
  await h?.close();
  await browser?.close();
});

/** Shows a tool's answer in the host, runs the checks, and closes the page whatever happens. */
async function viewing(
  tool: string,
  args: Record<string, unknown>,
  check: (shown: Shown) => Promise<void>,
  hostContext: Record<string, unknown> = {},
): Promise<void> {
  const shown = await showInHost(browser, h.mcp, tool, args, hostContext);
  try {
    await check(shown);
  } finally {
    await shown.page.close();
  }
}
type Shown = Awaited<ReturnType<typeof showInHost>>;
/** Observable Plot labels each axis' tick labels as a group, "x-axis tick label" or "y-axis tick label". */
const TICK_LABELS = (axis: 'x' | 'y') => `svg[role="img"] [aria-label="${axis}-axis tick label"] text`;

describe('the usage view, rendered by a real MCP Apps host from a real tool answer', () => {
  it('draws the daily active users as a trend, with a table holding every value as the answer gave it', async () => {
    await viewing('get_active_user_counts', { range: 'last_30_days' }, async (shown) => {
      const days = shown.result.structuredContent.days as Array<{ date: string; user_count: number }>;
      const daily = shown.view.locator('tbody tr', { hasText: 'User count by day' });
      await expect.poll(() => daily.count()).toBe(days.length);
      const cells = await daily.locator('td:nth-child(2), td:nth-child(3)').allTextContents();
      expect(cells).toEqual(days.flatMap((d) => [d.date, String(d.user_count)]));
      const chart = shown.view.locator('svg[role="img"]').first();
      expect(await chart.getAttribute('aria-label')).toContain(`${days[0]!.user_count} on ${days[0]!.date}`);
      // Ticks and gridlines to read a value off the line; pointing at a day shows its value as the answer gave it.
      expect(await chart.locator('[aria-label="y-grid"] line').count()).toBeGreaterThan(2);
      expect(await chart.locator('[aria-label="x-axis tick label"] text').count()).toBeGreaterThan(2);
      await chart.locator('circle').last().hover();
      const last = days.at(-1)!;
      await expect.poll(() => tipLines(chart)).toEqual([last.date, `User count: ${last.user_count}`]);
      await shown.screenshot('usage-dau');
    });
  });

  it('shows credits by model exactly as the answer states them, cents and all', async () => {
    await viewing('get_credit_usage', { range: 'last_7_days', by_model: true }, async (shown) => {
      const byModel = shown.result.structuredContent.totals.by_model as Record<string, string>;
      await expect.poll(() => shown.view.locator('tbody tr').count()).toBeGreaterThan(0);
      const text = await shown.view.locator('table').textContent();
      for (const [model, credits] of Object.entries(byModel)) expect(text).toContain(`${model}${credits}`);
      // The split's legend names each part with its amount, exactly.
      const legend = await legendEntries(shown.view.locator('figure', { hasText: 'By model' }));
      expect(legend).toEqual(Object.entries(byModel).map(([m, c]) => `${m} ${c}`));
      await shown.screenshot('usage-credits');
    });
  });

  it("follows the host's theme variables", async () => {
    const theme = { theme: 'dark', styles: { variables: { '--color-background-primary': 'rgb(17, 17, 17)' } } };
    await viewing(
      'get_active_user_counts',
      { range: 'last_7_days' },
      async (shown) => {
        await expect.poll(() => shown.view.locator('tbody tr').count()).toBeGreaterThan(0);
        const background = await shown.view
          .locator('body')
          .evaluate((b) => (globalThis as any).getComputedStyle(b).backgroundColor);
        expect(background).toBe('rgb(17, 17, 17)');
        await shown.screenshot('usage-dark');
      },
      theme,
    );
  });
});

describe('the usage view draws every kind of answer it is linked to', () => {
  it('cost by resource as a split whose labels and amounts are the rows, exactly', async () => {
    await viewing(
      'get_cost_analytics',
      {
        range: 'last_7_days',
        group_by: ['resource'],
      },
      async (shown) => {
        const rows = shown.result.structuredContent.rows as Array<{
          resource: string;
          resource_type: string;
          cost: Record<string, string>;
        }>;
        await expect.poll(() => shown.view.locator('tbody tr').count()).toBe(rows.length);
        const table = await shown.view
          .locator('tbody tr')
          .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent)));
        expect(table).toEqual(rows.map((r) => [`${r.resource} · ${r.resource_type}`, r.cost.billed_amount_usd]));
        expect(await shown.view.locator('figcaption').first().textContent()).toBe(
          'Billed amount usd by resource, resource type',
        );
        await shown.screenshot('usage-cost-by-resource');
      },
    );
  });

  it('per-person activity as a ranking by the sort key, top ten, values as given', async () => {
    await viewing('get_user_activity', { range: 'last_30_days', limit: 25 }, async (shown) => {
      const { rows, sort_by } = shown.result.structuredContent as {
        rows: Array<{ user: string; values: Record<string, number> }>;
        sort_by: string;
      };
      const top = [...rows].sort((a, b) => b.values[sort_by]! - a.values[sort_by]!).slice(0, 10);
      await expect.poll(() => shown.view.locator('tbody tr').count()).toBe(top.length);
      const labels = await shown.view.locator(TICK_LABELS('y')).allTextContents();
      expect(labels).toEqual(top.map((r) => r.user));
      const values = await shown.view.locator('svg[role="img"] .values text').allTextContents();
      expect(values).toEqual(top.map((r) => String(r.values[sort_by])));
      await shown.screenshot('usage-activity');
    });
  });

  it('the overview: every value the view shows is one the answer holds', async () => {
    await viewing('get_usage_overview', { range: 'last_30_days' }, async (shown) => {
      await expect.poll(() => shown.view.locator('tbody tr').count()).toBeGreaterThan(5);
      expect(await shown.view.locator('figure').count()).toBeGreaterThanOrEqual(3);
      const answer = JSON.stringify(shown.result.structuredContent);
      const values = await shown.view.locator('tbody td:nth-child(3)').allTextContents();
      for (const value of values) expect(answer).toContain(value);
      await shown.screenshot('usage-overview');
    });
  });
});

describe('the usage view reads the answer as it was asked', () => {
  it('a comparison adds no chart that mixes measures', async () => {
    await viewing(
      'get_active_user_counts',
      {
        range: 'last_30_days',
        compare_to: 'previous_period',
      },
      async (shown) => {
        await expect.poll(() => shown.view.locator('figure').count()).toBeGreaterThan(0);
        const titles = await shown.view.locator('figcaption').allTextContents();
        expect(titles).toEqual(['User count by day', 'Average by week']);
      },
    );
  });

  it("one person's credits by day: in date order, today marked partial", async () => {
    const person = h.sim.state.org.identities.find((i) => i.kind === 'user' && i.leaveDay === Infinity)!.id;
    await viewing(
      'get_credit_usage',
      {
        range: 'last_7_days',
        by_date: true,
        users: [person],
        sort_by: 'credits_consumed',
      },
      async (shown) => {
        const answer = shown.result.structuredContent as { rows: Array<{ date: string }>; includes_today: boolean };
        const dates = [...new Set(answer.rows.map((r) => r.date))].sort();
        const trend = shown.view.locator('tbody tr', { hasText: 'by day' });
        await expect.poll(() => trend.count()).toBe(dates.length);
        const labels = await trend.locator('td:nth-child(2)').allTextContents();
        expect(labels.map((l) => l.replace(' (partial)', ''))).toEqual(dates);
        const answerEnd = (shown.result.structuredContent as { end_date: string }).end_date;
        if (answer.includes_today && dates.at(-1) === answerEnd) expect(labels.at(-1)).toMatch(/\(partial\)$/);
      },
    );
  });

  it('the least active, when that is what was asked', async () => {
    await viewing('get_user_activity', { range: 'last_30_days', order: 'asc' }, async (shown) => {
      await expect.poll(() => shown.view.locator('figcaption').count()).toBeGreaterThan(0);
      expect(await shown.view.locator('figcaption').first().textContent()).toMatch(/^Least 10 by /);
      const rows = shown.result.structuredContent.rows as Array<{ user: string }>;
      const labels = await shown.view.locator(TICK_LABELS('y')).allTextContents();
      expect(labels).toEqual(rows.slice(0, 10).map((r) => r.user));
    });
  });

  it('an error answer shows its words, not an empty chart', async () => {
    await viewing(
      'get_active_user_counts',
      {
        start_date: '2026-11-21',
        end_date: '2026-11-21',
      },
      async (shown) => {
        expect(shown.result.isError).toBe(true);
        const said = (shown.result.content as Array<{ text: string }>)[0]!.text;
        await expect.poll(() => shown.view.locator('[role="status"]').textContent()).toBe(said);
      },
    );
  });
});
