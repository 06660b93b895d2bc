import { z } from 'zod';
import { defineListing } from '../endpoint.js';
import { count, metricsSchema, withIdentity } from '../schemas.js';

/** Metrics per identity, editor and language on one day, paged. */
export const dailyUserActivityByEditorLanguage = defineListing({
  name: 'daily-user-activity-by-editor-language',
  dates: { rules: 'metrics', takes: 'date' },
  paging: { default: 50, max: 100 },
  rows: { records: withIdentity({ language: z.string(), editor: z.string(), metrics: metricsSchema }) },
  counts: { returned_record_count: count },
});
export const editorLanguageSchema = dailyUserActivityByEditorLanguage.schema;
export type EditorLanguage = z.infer<typeof editorLanguageSchema>;
