import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { showInHost } from '../helpers/apps-host.js';
import { harness, type Harness } from '../helpers/mcp.js';

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

describe('the usage view, rendered by a real MCP Apps host from a real tool answer', () => {
  it('draws the daily active users as a trend, with a table holding every value as the answer gave it', async () => {
    const shown = await showInHost(browser, h.mcp, 'get_active_user_counts', { range: 'last_30_days' });
    try {
      const days = shown.result.structuredContent.days as Array<{ date: string; user_count: number }>;
      await expect.poll(() => shown.view.locator('tbody tr').count()).toBe(days.length);
      const cells = await shown.view.locator('tbody tr td:nth-child(2), tbody tr td:nth-child(3)').allTextContents();
      expect(cells).toEqual(days.flatMap((d) => [d.date, String(d.user_count)]));
      const chart = shown.view.locator('svg[role="img"]').first();
      expect(await chart.getAttribute('aria-label')).toContain(`${days[0]!.user_count} on ${days[0]!.date}`);
      await shown.screenshot('usage-dau');
    } finally {
      await shown.page.close();
    }
  });

  it('shows credits by model exactly as the answer states them, cents and all', async () => {
    const shown = await showInHost(browser, h.mcp, 'get_credit_usage', { range: 'last_7_days', by_model: true });
    try {
      const byModel = shown.result.structuredContent.totals.by_model as Record<string, string>;
      await expect.poll(() => shown.view.locator('tbody tr').count()).toBeGreaterThan(0);
      const text = await shown.view.locator('table').textContent();
      for (const [model, credits] of Object.entries(byModel)) expect(text).toContain(`${model}${credits}`);
      await shown.screenshot('usage-credits');
    } finally {
      await shown.page.close();
    }
  });

  it("follows the host's theme variables", async () => {
    const shown = await showInHost(
      browser,
      h.mcp,
      'get_active_user_counts',
      { range: 'last_7_days' },
      { theme: 'dark', styles: { variables: { '--color-background-primary': 'rgb(17, 17, 17)' } } },
    );
    try {
      await expect.poll(() => shown.view.locator('tbody tr').count()).toBeGreaterThan(0);
      const background = await shown.view.locator('body').evaluate((b) => getComputedStyle(b).backgroundColor);
      expect(background).toBe('rgb(17, 17, 17)');
    } finally {
      await shown.page.close();
    }
  });
});
