import type { CostQuery } from '../../upstream/endpoints/cost-analytics.js';
import { rangeId, rollupId } from '../store/block-ids.js';
import { answersAsIs, costProjection, rollupDataset, rollupsFor } from '../store/derived/cost-rollups.js';
import { datasetById, type Dataset } from '../store/datasets.js';
import { spanOf } from '../store/derived/spans.js';
import { rangeById } from '../store/range-blocks.js';

type Row = Record<string, unknown>;

/** A stored dataset that can answer a request, and how its rows become the rows the request would get. */
export interface Source {
  dataset: Dataset;
  project(rows: Row[]): Row[];
}

const same = (rows: Row[]) => rows;
// Copies without the fields, key by key: a `delete` would turn each copy into a slow dictionary.
const without = (...fields: string[]) => {
  const left = new Set(fields);
  return (rows: Row[]) =>
    rows.map((row) => {
      const out: Row = {};
      for (const key of Object.keys(row))
        if (left.has(key)) continue;
        // Assigned, this key would set the prototype; the copy keeps it as its own, as a spread does.
        else if (key === '__proto__')
          Object.defineProperty(out, key, { value: row[key], enumerable: true, writable: true, configurable: true });
        else out[key] = row[key];
      return out;
    });
};

/** The spans summing a dataset of days or months, read the same way, where the question is not by day. */
const spans = (datasetId: string, project: Source['project']): Source[] => {
  const dataset = spanOf(datasetId);
  return dataset ? [{ dataset, project }] : [];
};

/** The range blocks of a dataset (range-blocks.ts): its trailing windows as the upstream answers them whole. */
const ranges = (id: string, project: Source['project']): Source[] => [{ dataset: rangeById(id), project }];

/**
 * The stored datasets that answer a request, runs of months, months, runs of days, days, then range blocks: the
 * fewest blocks cover its days.
 * Null when the store keeps nothing that answers it (the request goes live as before).
 */
export function sourcesOf(listingName: string, params: Row): Source[] | null {
  const plain = (id: string): Source => ({ dataset: datasetById(id), project: same });
  switch (listingName) {
    case 'dau-count':
    case 'daily-usage':
    case 'dau':
      return [plain(listingName)];
    case 'daily-user-activity-by-editor-language':
      return [plain('editor-language')];
    case 'user-activity':
      return [
        ...spans('user-activity-months', same),
        plain('user-activity-months'),
        ...spans('user-activity', same),
        plain('user-activity'),
        ...ranges(rangeId('user-activity'), same),
      ];
    case 'credit-usage-by-user': {
      const model = params.by_model === true ? [] : ['model_name'];
      const days = { dataset: datasetById('credits-by-date-model'), project: without(...model) };
      if (params.by_date === true) return [days];
      return [
        ...spans('credits-by-model-months', without(...model)),
        { dataset: datasetById('credits-by-model-months'), project: without(...model) },
        ...spans(days.dataset.id, without(...model)),
        { dataset: days.dataset, project: without('date', ...model) },
        // Kept per identity only: it answers the question without models.
        ...(params.by_model === true ? [] : ranges(rangeId('credits-by-user'), same)),
      ];
    }
    case 'cost-analytics': {
      const query = params as CostQuery;
      const byDay = query.granularity === 'COST_ANALYTICS_TIME_GRANULARITY_DAY';
      const project = costProjection(query, byDay);
      const days: Source = { dataset: datasetById('cost-by-day'), project };
      // A rollup (fewer rows, summed when stored) answers first where it holds what the question needs.
      const rollup = (from: string, summed = false): Source[] => {
        const best = rollupsFor(query, from)[0];
        if (!best) return [];
        const source = { dataset: rollupDataset(best), project: answersAsIs(best, query) ? same : project };
        return summed ? [...spans(best.id, source.project), source] : [source];
      };
      if (byDay) return [...rollup('cost-by-day'), days];
      // Cost by user over the range: it answers what the rollup by user would (the same rows, summed by the upstream).
      const byUser = rollupsFor(query, 'cost-by-day').find((r) => r.id === rollupId('cost-by-day', 'user'));
      return [
        ...rollup('cost-total-months', true),
        { dataset: datasetById('cost-total-months'), project },
        ...rollup('cost-by-day', true),
        days,
        ...(byUser ? ranges(rangeId('cost-by-user'), answersAsIs(byUser, query) ? same : project) : []),
      ];
    }
    default:
      return null;
  }
}
