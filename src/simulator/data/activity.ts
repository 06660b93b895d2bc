import { METRIC_COUNT, METRIC_FIELDS, type MetricField } from '../../contract/metrics.js';
import { weekday } from '../../util/utc-date.js';
import { MODELS, NEW_MODEL, SPIKE } from './catalog.js';
import { isMember, type Identity, type Organization } from './organization.js';
import { cellOf, drawAt } from '../random.js';

/** Index of each metric field in a packed metrics row. */
export const M = Object.fromEntries(METRIC_FIELDS.map((f, i) => [f, i])) as Record<MetricField, number>;

/** Everything that happened on one day, packed in typed arrays: one row per active identity. */
export interface DayData {
  day: number;
  /** Active identity indexes, ascending (which is the API's output order). */
  ids: Int32Array;
  /** ids.length × 16 metrics. */
  metrics: Int32Array;
  /** ids.length × 2 (model index or −1, credits). */
  creditModels: Int8Array;
  credits: Int32Array;
  /** Set on a day whose data is not published yet: it reads as empty everywhere. */
  unpublished?: true;
}

const WEEKEND_FACTOR = 0.22;

const NEW_MODEL_INDEX = MODELS.findIndex((m) => m.name === NEW_MODEL.name);

/** How many times its usual work an identity does that day: SPIKE.factor on the planted spike, else 1. */
function spikeFactor(org: Organization, index: number, day: number): number {
  const planted = day === org.anchorDay - SPIKE.daysBeforeAnchor && org.byServiceAccount.get(SPIKE.account) === index;
  return planted ? SPIKE.factor : 1;
}

/** Whether a person has taken up the planted new model by that day (one in NEW_MODEL.everyNth people). */
function takesNewModel(org: Organization, identity: Identity, index: number, day: number): boolean {
  return (
    identity.kind === 'user' && index % NEW_MODEL.everyNth === 7 && day >= org.anchorDay - NEW_MODEL.daysBeforeAnchor
  );
}

function activeProbability(
  org: Organization,
  identity: Identity,
  day: number,
  weekend: boolean,
  spike: boolean,
): number {
  if (!isMember(identity, day)) return 0;
  if (spike) return 1;
  let p = identity.activity;
  if (identity.kind === 'user' && weekend) p *= WEEKEND_FACTOR;
  if (day - identity.joinDay < 14) p *= 0.5;
  // Adoption deepens over time: a day long ago is a little quieter than one today.
  const age = Math.max(0, org.anchorDay - day);
  return p * (1 - Math.min(0.35, age / 3000));
}

function fillMetrics(
  org: Organization,
  identity: Identity,
  index: number,
  day: number,
  out: Int32Array,
  o: number,
): void {
  const cell = cellOf(org.seed, index, day);
  const s = identity.intensity * spikeFactor(org, index, day);
  const f = Math.floor;
  const user = identity.kind === 'user';
  const ideUser = user && identity.editor !== 'CLI';
  const completions = ideUser ? f(s * 70 * drawAt(cell, 1)) : 0;
  const accepted = f(completions * (0.18 + 0.22 * drawAt(cell, 2)));
  const suggested = f(completions * (1.4 + 2.2 * drawAt(cell, 3)));
  const completionLines = Math.min(suggested, f(accepted * (1.3 + 1.6 * drawAt(cell, 4))));
  const chat = user ? f(s * 9 * drawAt(cell, 5) * drawAt(cell, 6)) : 0;
  const agentWork = s * 30 * drawAt(cell, 7);
  const ide = ideUser ? f(agentWork * (1 - identity.cliShare)) : 0;
  const cliInteractive = user ? f(agentWork * identity.cliShare) : 0;
  const cliBatch = user
    ? drawAt(cell, 8) < 0.03
      ? 1 + f(4 * drawAt(cell, 9))
      : 0
    : f(s * 45 * (0.3 + drawAt(cell, 9)));
  const remote = identity.usesRemoteAgent && day < org.remoteAgentSunsetDay ? f(s * 6 * drawAt(cell, 10)) : 0;
  const agentMessages = ide + cliInteractive + cliBatch + remote;

  out[o + M.completions_count] = completions;
  out[o + M.completions_accepted] = accepted;
  out[o + M.completions_suggested_lines_of_code] = suggested;
  out[o + M.completions_lines_of_code] = completionLines;
  // An active day always shows some activity.
  out[o + M.chat_messages] = chat || (completions === 0 && agentMessages === 0 ? 1 : 0);
  out[o + M.ide_agent_messages] = ide;
  out[o + M.ide_agent_lines_of_code] = f(ide * (3 + 12 * drawAt(cell, 11)));
  out[o + M.cli_agent_interactive_messages] = cliInteractive;
  out[o + M.cli_agent_interactive_lines_of_code] = f(cliInteractive * (2 + 10 * drawAt(cell, 12)));
  out[o + M.cli_agent_non_interactive_messages] = cliBatch;
  out[o + M.cli_agent_non_interactive_lines_of_code] = f(cliBatch * (1 + 7 * drawAt(cell, 13)));
  out[o + M.remote_agent_messages] = remote;
  out[o + M.remote_agent_lines_of_code] = f(remote * (5 + 15 * drawAt(cell, 14)));
  out[o + M.total_tool_calls] = f(agentMessages * (1.5 + 3 * drawAt(cell, 15)));
  recomputeTotals(out, o);
}

const AGENT_MESSAGES = [
  M.ide_agent_messages,
  M.cli_agent_interactive_messages,
  M.cli_agent_non_interactive_messages,
  M.remote_agent_messages,
];
/** What total_messages and total_modified_lines_of_code add up. */
const MESSAGES = [M.chat_messages, ...AGENT_MESSAGES];
const MODIFIED_LINES = [
  M.completions_lines_of_code,
  M.ide_agent_lines_of_code,
  M.cli_agent_interactive_lines_of_code,
  M.cli_agent_non_interactive_lines_of_code,
  M.remote_agent_lines_of_code,
];

/** The sum of these fields of the row at offset o. */
function sumAt(row: Int32Array, o: number, fields: number[]): number {
  let sum = 0;
  for (const f of fields) sum += row[o + f]!;
  return sum;
}

/** The two totals that are plain sums of other fields. */
export function recomputeTotals(row: Int32Array, o = 0): void {
  row[o + M.total_messages] = sumAt(row, o, MESSAGES);
  row[o + M.total_modified_lines_of_code] = sumAt(row, o, MODIFIED_LINES);
}

function fillCredits(
  org: Organization,
  identity: Identity,
  index: number,
  day: number,
  metrics: Int32Array,
  o: number,
  models: Int8Array,
  credits: Int32Array,
  c: number,
): void {
  const agent = sumAt(metrics, o, AGENT_MESSAGES);
  const total = Math.round(
    agent * (6 + 14 * drawAt(cellOf(org.seed, index, day), 20)) + metrics[o + M.chat_messages]! * 1.5,
  );
  const newModel = takesNewModel(org, identity, index, day);
  const [first, second] = newModel ? [identity.models[0], NEW_MODEL_INDEX] : identity.models;
  const share = newModel ? 0.5 : identity.modelShare;
  const firstShare = second >= 0 ? Math.round(total * share) : total;
  models[c] = firstShare > 0 ? first : -1;
  credits[c] = firstShare;
  models[c + 1] = second >= 0 && total - firstShare > 0 ? second : -1;
  credits[c + 1] = total - firstShare;
}

export function computeDay(org: Organization, day: number): DayData {
  const n = org.identities.length;
  const wd = weekday(day);
  const weekend = wd === 0 || wd === 6;
  const active: number[] = [];
  for (let i = 0; i < n; i++) {
    const identity = org.identities[i]!;
    const p = activeProbability(org, identity, day, weekend, spikeFactor(org, i, day) > 1);
    if (drawAt(cellOf(org.seed, i, day), 0) < p) active.push(i);
  }
  const ids = Int32Array.from(active);
  const metrics = new Int32Array(ids.length * METRIC_COUNT);
  const creditModels = new Int8Array(ids.length * 2);
  const credits = new Int32Array(ids.length * 2);
  for (let k = 0; k < ids.length; k++) {
    const i = ids[k]!;
    const identity = org.identities[i]!;
    fillMetrics(org, identity, i, day, metrics, k * METRIC_COUNT);
    fillCredits(org, identity, i, day, metrics, k * METRIC_COUNT, creditModels, credits, k * 2);
  }
  return { day, ids, metrics, creditModels, credits };
}

/** Computes days on demand and keeps the most recent ones, bounded by an estimate of their size. */
export class DayStore {
  private readonly cache = new Map<number, DayData>();
  private readonly maxDays: number;

  constructor(private readonly org: Organization) {
    const bytesPerDay = Math.max(1, org.identities.length) * 0.7 * (METRIC_COUNT * 4 + 16);
    this.maxDays = Math.max(40, Math.min(800, Math.floor(96_000_000 / bytesPerDay)));
  }

  get(day: number): DayData {
    const hit = this.cache.get(day);
    if (hit) {
      this.cache.delete(day);
      this.cache.set(day, hit);
      return hit;
    }
    const data = computeDay(this.org, day);
    this.cache.set(day, data);
    if (this.cache.size > this.maxDays) this.cache.delete(this.cache.keys().next().value as number);
    return data;
  }
}
