import { z } from 'zod';
import { defineListing } from '../endpoint.js';
import { dailyPolicy } from '../freshness.js';
import { concat } from '../merge.js';
import { count, dayMeta, metricsSchema, paginationSchema, withIdentity } from '../schemas.js';

export const editorLanguageSchema = z.object({
  records: z.array(withIdentity({ language: z.string(), editor: z.string(), metrics: metricsSchema })),
  pagination: paginationSchema,
  metadata: z.object({ ...dayMeta, returned_record_count: count }),
});
export type EditorLanguage = z.infer<typeof editorLanguageSchema>;

/** Metrics per identity, editor and language on one day, paged. */
export const dailyUserActivityByEditorLanguage = defineListing({
  name: 'daily-user-activity-by-editor-language',
  method: 'GET',
  params: 'query',
  schema: editorLanguageSchema,
  group: 'general',
  cache: dailyPolicy,
  dates: { rules: 'metrics', takes: 'date' },
  items: (v) => v.records,
  paging: { default: 50, max: 100 },
  merge: concat,
});
