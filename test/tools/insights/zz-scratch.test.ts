import { it } from 'vitest';
import { storedHarness } from '../../helpers/history.js';
import { harness } from '../../helpers/mcp.js';

it('scratch', async () => {
  const live = await harness({ sim: { users: 300 } });
  const stored = await storedHarness({ historyDays: 40, historyMonths: 0 }, { simulator: live.sim });
  let t = Date.now();
  const r = await stored.call('find_anomalies', { limit: 40 });
  console.log(Date.now() - t, r.text);
  t = Date.now();
  const l = await live.call('find_anomalies', {});
  console.log(Date.now() - t, l.text);
  await stored.close();
  await live.close();
}, 300_000);
