import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, withBrowserTimeouts } from '../helpers/browser.js';
import { showInHost } from '../helpers/apps-host.js';
import { harness, truth, type Harness } from '../helpers/mcp.js';

withBrowserTimeouts();

const CREDITS = 'BUDGET_RESOURCE_CREDITS_CONSUMED';
let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

/** A server whose client confirms writes (as a person clicking "yes" in the host would), with two overrides set. */
async function withOverrides(
  config: Record<string, unknown> = {},
  count = 2,
): Promise<{ h: Harness; people: string[] }> {
  const h = await harness({
    sim: { users: 80 },
    config,
    capabilities: { elicitation: { form: {} } },
    setup: (client) =>
      client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { confirm: true } })),
  });
  const people = h.sim.state.org.identities
    .filter((i) => i.kind === 'user' && i.leaveDay === Infinity)
    .slice(0, count)
    .map((i) => i.id);
  await truth(
    h.sim,
    'set-user-budget-overrides',
    {},
    {
      overrides: people.map((user_email, i) => ({
        user_email,
        resource: CREDITS,
        period: 'BUDGET_PERIOD_MONTHLY',
        config: { limit: String(1000 * (i + 1)) },
      })),
    },
  );
  return { h, people };
}

describe('the budget view, in a real MCP Apps host', () => {
  it('shows each override with its use, previews an edit as a dry run, then applies it through the host', async () => {
    const { h, people } = await withOverrides();
    const shown = await showInHost(browser, h.mcp, 'get_budget_status', {});
    try {
      const rows = shown.result.structuredContent.rows as Array<{
        user: string;
        used: string;
        limit: string;
        percent_used?: number | null;
      }>;
      await expect.poll(() => shown.view.locator('tbody tr').count()).toBe(rows.length);
      const first = shown.view.locator('tbody tr').first();
      const cells = await first.locator('td').allTextContents();
      expect(cells.slice(0, 4)).toEqual([rows[0]!.user, expect.any(String), rows[0]!.used, rows[0]!.limit]);
      // The chart: the overrides most used against their limit, most first, each with its percent as given.
      const charted = rows
        .filter((r): r is typeof r & { percent_used: number } => typeof r.percent_used === 'number')
        .sort((a, b) => b.percent_used - a.percent_used)
        .slice(0, 20);
      const chart = shown.view.locator('svg[role="img"]');
      expect(await chart.locator('[aria-label="y-axis tick label"] text').allTextContents()).toEqual(
        charted.map((r) => r.user),
      );
      expect(await chart.locator('.values text').allTextContents()).toEqual(charted.map((r) => `${r.percent_used}%`));
      expect(await chart.getAttribute('aria-label')).toContain(`${charted[0]!.user} ${charted[0]!.percent_used}%`);
      await shown.screenshot('budget-chart');

      const target = rows.findIndex((r) => r.user === people[0]);
      await shown.view.getByLabel(`New limit for ${people[0]}`).fill('4321');
      await shown.view.getByRole('button', { name: 'Preview changes' }).click();
      await expect.poll(() => shown.view.locator('.diff').textContent()).toContain(`${people[0]}: 1000 → 4321`);
      const before = h.sim.requests().filter((r) => r.path.endsWith('set-user-budget-overrides')).length;
      expect(target).toBeGreaterThanOrEqual(0);
      await shown.screenshot('budget-preview');

      await shown.view.getByRole('button', { name: 'Apply' }).click();
      await expect.poll(() => shown.view.locator('[role="status"]').textContent()).not.toMatch(/Applying/);
      const writes = h.sim
        .requests()
        .filter((r) => r.path.endsWith('set-user-budget-overrides'))
        .slice(before);
      expect(writes.map((w) => w.status)).toEqual([200]);
      expect(JSON.stringify(writes[0]!.body)).toContain('"limit":"4321"');
      expect(shown.calls.map((c) => c.arguments?.dry_run)).toEqual([true, false]);
      await shown.screenshot('budget-applied');
    } finally {
      await shown.page.close();
      await h.close();
    }
  });

  it('applies exactly what was previewed: an edit after the preview withdraws it; a limit can be cleared', async () => {
    const { h, people } = await withOverrides();
    const shown = await showInHost(browser, h.mcp, 'get_budget_status', {});
    try {
      await expect.poll(() => shown.view.locator('tbody tr').count()).toBeGreaterThan(1);
      const apply = shown.view.getByRole('button', { name: 'Apply' });
      await shown.view.getByLabel(`Clear the limit for ${people[1]}`).check();
      await shown.view.getByRole('button', { name: 'Preview changes' }).click();
      await expect.poll(() => shown.view.locator('.diff').textContent()).toContain(`${people[1]}: 2000 → cleared`);
      expect(await apply.isEnabled()).toBe(true);
      // Typing after the preview: Apply waits for a new one.
      await shown.view.getByLabel(`New limit for ${people[0]}`).fill('777');
      expect(await apply.isEnabled()).toBe(false);
      await shown.view.getByRole('button', { name: 'Preview changes' }).click();
      await expect.poll(() => apply.isEnabled()).toBe(true);
      await apply.click();
      await expect.poll(() => shown.calls.length).toBe(3);
      expect(shown.calls[2]!.arguments).toEqual(
        shown.calls[1]!.arguments && { ...shown.calls[1]!.arguments, dry_run: false },
      );
      const row = shown.view.locator('tbody tr', { hasText: people[1]! });
      await expect.poll(() => row.locator('td').nth(3).textContent()).toBe('cleared');
      // A cleared override stays, with an empty limit (the spec's "cleared" state).
      const overrides = (await truth(h.sim, 'get-user-budget-overrides', {}, {})).overrides as Array<{
        user_email?: string;
        config: { limit: string };
      }>;
      expect(overrides.find((o) => o.user_email === people[1])?.config.limit).toBe('');
    } finally {
      await shown.page.close();
      await h.close();
    }
  });

  it('after applying more changes than the answer has rows for, says how many more were applied', async () => {
    const { h, people } = await withOverrides({}, 45);
    const shown = await showInHost(browser, h.mcp, 'get_budget_overrides', { limit: 100 });
    try {
      await expect.poll(() => shown.view.locator('tbody tr').count()).toBeGreaterThanOrEqual(45);
      for (const [i, person] of people.entries())
        await shown.view.getByLabel(`New limit for ${person}`).fill(`${5000 + i}`);
      await shown.view.getByRole('button', { name: 'Preview changes' }).click();
      const apply = shown.view.getByRole('button', { name: 'Apply' });
      await expect.poll(() => apply.isEnabled()).toBe(true);
      await apply.click();
      await expect.poll(() => shown.calls.length).toBe(2);
      expect(shown.calls[1]!.arguments?.dry_run).toBe(false);
      const status = shown.view.locator('[role="status"]');
      await expect.poll(() => status.textContent()).toMatch(/^Done \(45 entries\): applied 45\./);
      const overrides = (await truth(h.sim, 'get-user-budget-overrides', {}, {})).overrides as Array<{
        user_email?: string;
        config: { limit: string };
      }>;
      expect(people.map((p) => overrides.find((o) => o.user_email === p)?.config.limit)).toEqual(
        people.map((_, i) => `${5000 + i}`),
      );
      // The rows the answer listed are updated in place; the note counts the others.
      const note = shown.view.locator('p.sub');
      await expect
        .poll(() => note.textContent())
        .toMatch(/(\d+) more were applied; reload the view to see their limits/);
      const more = Number(/(\d+) more were applied/.exec((await note.textContent())!)![1]);
      expect(more).toBeGreaterThan(0);
      const updated = await Promise.all(
        people.map((p) => shown.view.locator('tbody tr', { hasText: p }).first().locator('td').nth(3).textContent()),
      );
      expect(updated.filter((text, i) => text === `${5000 + i}`).length).toBe(45 - more);
    } finally {
      await shown.page.close();
      await h.close();
    }
  });

  it('a read-only server shows the view without editing controls', async () => {
    const { h } = await withOverrides({ readOnly: true });
    const shown = await showInHost(browser, h.mcp, 'get_budget_overrides', {});
    try {
      await expect.poll(() => shown.view.locator('tbody tr').count()).toBeGreaterThan(0);
      expect(await shown.view.locator('input, button').count()).toBe(0);
      expect(await shown.view.locator('main').textContent()).toContain('Read-only');
    } finally {
      await shown.page.close();
      await h.close();
    }
  });
});
