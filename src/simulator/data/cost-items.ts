import { dayOfMonth, weekday } from '../../util/utc-date.js';
import { METRIC_COUNT } from '../../contract/metrics.js';
import { M, type DayData } from './activity.js';
import { COMPUTE_PRICE_MICROS, EXPERTS, GIANT_TOKEN_ACCOUNT, MODELS, PRODUCTS, type Product } from './catalog.js';
import type { Organization } from './organization.js';
import { cellOf, drawAt } from '../random.js';

/** One billable line of one identity's day. Money in micro-USD, credits in hundredths. */
export interface CostItem {
  /** Identity index, or identities.length + bot index for bots. */
  owner: number;
  product: number;
  /** Model index, or MODELS.length for the compute resource. */
  resource: number;
  byok: boolean;
  /** Expert index, or −1. */
  expert: number;
  creditsCenti: number;
  baseMicros: number;
  billedMicros: number;
  surchargeMicros: number;
  estimatedMicros: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Added to cacheReadTokens as a bigint; only the giant-token batch job sets it. */
  extraCacheRead: bigint;
}

export const COMPUTE_RESOURCE_INDEX = MODELS.length;
const PRODUCT_INDEX = new Map(PRODUCTS.map((p, i) => [p, i]));
const productIndex = (p: Product) => PRODUCT_INDEX.get(p)!;
/** The products a day's credits are apportioned to, in the order of the weights computed below. */
const WEIGHTED_PRODUCTS: readonly Product[] = ['Chat', 'IDE Agent', 'CLI Agent', 'Remote Agent'];
const GIANT_CACHE_READ = 9_214_775_806_402_117n;

function blankItem(): CostItem {
  return {
    owner: 0,
    product: 0,
    resource: 0,
    byok: false,
    expert: -1,
    creditsCenti: 0,
    baseMicros: 0,
    billedMicros: 0,
    surchargeMicros: 0,
    estimatedMicros: 0,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    extraCacheRead: 0n,
  };
}

/** Items are emitted through one reused object: aggregation reads it and must not keep it. */
const scratch = blankItem();

function modelItem(
  cell: number,
  owner: number,
  stream: number,
  product: Product,
  model: number,
  credits: number,
  byok: boolean,
  expert: number,
): CostItem {
  const s = 100 + stream * 8;
  const inputTokens = Math.round(credits * (600 + 900 * drawAt(cell, s)));
  const outputTokens = Math.round(credits * (40 + 110 * drawAt(cell, s + 1)));
  const cacheReadTokens = Math.round(credits * (1500 + 4000 * drawAt(cell, s + 2)));
  const cacheWriteTokens = Math.round(credits * (80 + 300 * drawAt(cell, s + 3)));
  const p = MODELS[model]!.price;
  const baseMicros = Math.round(
    inputTokens * p.input + outputTokens * p.output + cacheReadTokens * p.cacheRead + cacheWriteTokens * p.cacheWrite,
  );
  // A customer-key request is billed only the platform surcharge; the provider bills the base cost directly.
  const billedMicros = byok ? Math.round(baseMicros * 0.1) : Math.round(baseMicros * 1.25);
  const item = scratch;
  item.owner = owner;
  item.product = productIndex(product);
  item.resource = model;
  item.byok = byok;
  item.expert = expert;
  item.creditsCenti = credits * 100;
  item.baseMicros = baseMicros;
  item.billedMicros = billedMicros;
  item.surchargeMicros = byok ? billedMicros : billedMicros - baseMicros;
  item.estimatedMicros = byok ? baseMicros + billedMicros : billedMicros;
  item.inputTokens = inputTokens;
  item.outputTokens = outputTokens;
  item.cacheReadTokens = cacheReadTokens;
  item.cacheWriteTokens = cacheWriteTokens;
  item.extraCacheRead = 0n;
  return item;
}

function computeItem(owner: number, product: Product, vcpuCentiHours: number): CostItem {
  const baseMicros = Math.round((vcpuCentiHours * COMPUTE_PRICE_MICROS) / 100);
  const billedMicros = Math.round(baseMicros * 1.25);
  const item = Object.assign(scratch, blankItem());
  item.owner = owner;
  item.product = productIndex(product);
  item.resource = COMPUTE_RESOURCE_INDEX;
  item.creditsCenti = vcpuCentiHours * 3;
  item.baseMicros = baseMicros;
  item.billedMicros = billedMicros;
  item.surchargeMicros = billedMicros - baseMicros;
  item.estimatedMicros = billedMicros;
  return item;
}

/** Splits an integer amount by weights into `parts`, exactly (the largest weight takes the rounding remainder). */
function apportion(total: number, weights: Float64Array, parts: Float64Array): void {
  let sum = 0;
  let largest = 0;
  for (let i = 0; i < weights.length; i++) {
    sum += weights[i]!;
    if (weights[i]! > weights[largest]!) largest = i;
  }
  let given = 0;
  for (let i = 0; i < weights.length; i++) {
    parts[i] = sum === 0 ? 0 : Math.floor((total * weights[i]!) / sum);
    given += parts[i]!;
  }
  if (sum > 0) parts[largest]! += total - given;
}

/** The cost lines of every active identity's day, plus the bots' work. */
export function costItemsOfDay(org: Organization, data: DayData, emit: (item: CostItem) => void): void {
  if (data.unpublished) return;
  const { day } = data;
  const weights = new Float64Array(WEIGHTED_PRODUCTS.length);
  const parts = new Float64Array(WEIGHTED_PRODUCTS.length);
  for (let k = 0; k < data.ids.length; k++) {
    const owner = data.ids[k]!;
    const identity = org.identities[owner]!;
    const cell = cellOf(org.seed, owner, day);
    const o = k * METRIC_COUNT;
    const metrics = data.metrics;
    const remote = metrics[o + M.remote_agent_messages]!;
    weights[0] = metrics[o + M.chat_messages]!;
    weights[1] = metrics[o + M.ide_agent_messages]!;
    weights[2] = metrics[o + M.cli_agent_interactive_messages]! + metrics[o + M.cli_agent_non_interactive_messages]!;
    weights[3] = remote;
    for (let slot = 0; slot < 2; slot++) {
      const model = data.creditModels[k * 2 + slot]!;
      const credits = data.credits[k * 2 + slot]!;
      if (model < 0 || credits <= 0) continue;
      const byok = identity.byok && slot === 0;
      apportion(credits, weights, parts);
      for (let p = 0; p < parts.length; p++) {
        const c = parts[p]!;
        if (c <= 0) continue;
        const product = WEIGHTED_PRODUCTS[p]!;
        const agentic = product === 'IDE Agent' || product === 'CLI Agent';
        const expert =
          agentic && drawAt(cell, 40 + slot * 4 + p) < identity.expertAffinity
            ? Math.floor(drawAt(cell, 50 + p) * EXPERTS.length)
            : -1;
        emit(modelItem(cell, owner, slot * 4 + p, product, model, c, byok, expert));
      }
    }
    const sandboxRuns = metrics[o + M.cli_agent_non_interactive_messages]! + remote;
    if (sandboxRuns > 0) {
      emit(
        computeItem(
          owner,
          remote > 0 ? 'Remote Agent' : 'CLI Agent',
          Math.round(sandboxRuns * (5 + 25 * drawAt(cell, 60))),
        ),
      );
    }
  }
  botItems(org, day, emit);
  giantItem(org, day, emit);
}

function botItems(org: Organization, day: number, emit: (item: CostItem) => void): void {
  if (day < org.foundedDay + 200) return;
  const n = org.identities.length;
  const wd = weekday(day);
  if (wd !== 0 && wd !== 6) {
    const cell = cellOf(org.seed, n, day);
    const credits = 200 + Math.floor(800 * drawAt(cell, 1));
    emit(
      modelItem(
        cell,
        n,
        0,
        'Code Review',
        MODELS.findIndex((x) => x.name === 'claude-sonnet-4-5'),
        credits,
        false,
        -1,
      ),
    );
  }
  const cell = cellOf(org.seed, n + 1, day);
  const triage = 50 + Math.floor(150 * drawAt(cell, 1));
  emit(
    modelItem(
      cell,
      n + 1,
      0,
      'Chat',
      MODELS.findIndex((x) => x.name === 'claude-haiku-4-5'),
      triage,
      false,
      -1,
    ),
  );
}

/** On the 1st of each month a warehouse backfill reads more cached tokens than a JSON number can hold. */
function giantItem(org: Organization, day: number, emit: (item: CostItem) => void): void {
  if (dayOfMonth(day) !== 1) return;
  const owner = org.byServiceAccount.get(GIANT_TOKEN_ACCOUNT);
  if (owner === undefined || day < org.identities[owner]!.joinDay) return;
  const item = modelItem(
    cellOf(org.seed, owner, day),
    owner,
    15,
    'CLI Agent',
    MODELS.findIndex((x) => x.name === 'claude-haiku-4-5'),
    1234,
    false,
    -1,
  );
  item.extraCacheRead = GIANT_CACHE_READ + BigInt(day);
  emit(item);
}
