import { EXIT_FAILURE } from '../config/cli-options.js';
import { organizationOf, type Destination } from '../alerts/destinations.js';
import { sendUnit, unitsOf } from '../alerts/delivery-units.js';
import { settlementOf, DEFAULT_BACKOFF } from '../alerts/outcome.js';
import { sampleAlerts } from '../alerts/samples.js';
import { redactorOf } from '../privacy/redact.js';
import type { Runtime } from '../runtime/runtime.js';
import { usageError } from './command-opening.js';

/**
 * `alerts test`: a sample of each event kind to each destination (or the one named), sent now, one message each,
 * outside the outbox; one line per delivery. Exit 1 when one was not delivered.
 */
export async function sendSamples(
  destinations: readonly Destination[],
  only: string | undefined,
  runtime: Runtime,
  print: (line: string) => void,
): Promise<number> {
  const chosen = only === undefined ? destinations : destinations.filter((d) => d.name === only);
  if (chosen.length === 0)
    throw usageError(
      'alerts',
      `no destination is named ${only}: the file names ${destinations.map((d) => d.name).join(', ')}`,
    );
  const redact = redactorOf({ config: runtime.config, pii: runtime.pii, secrets: runtime.secrets });
  let missed = 0;
  for (const destination of chosen) {
    const byName = new Map([[destination.name, destination]]);
    const organization = organizationOf(runtime.config, runtime.client.baseUrl);
    for (const sample of sampleAlerts(destination.name, organization, (v) => redact.value(v))) {
      // One message per sample, so each event's look shows (a batch of them would come as one summary).
      const [unit] = unitsOf([sample], byName);
      const answer = await sendUnit(unit!).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
      const how = settlementOf(answer, sample, Date.now(), DEFAULT_BACKOFF);
      const status = answer instanceof Error ? '' : ` (${answer.status})`;
      const said = how.outcome === 'delivered' ? `delivered${status}` : `not delivered: ${how.error}`;
      if (how.outcome !== 'delivered') missed++;
      print(`${destination.name} (${destination.kind}) ${sample.testOf}: ${runtime.pii.text(redact.text(said))}`);
    }
  }
  return missed ? EXIT_FAILURE : 0;
}
