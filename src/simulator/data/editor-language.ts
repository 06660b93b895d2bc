import { METRIC_COUNT } from '../../contract/metrics.js';
import { M, recomputeTotals } from './activity.js';
import { CLI_EDITOR, LANGUAGES, UNKNOWN } from './catalog.js';
import type { Organization } from './organization.js';
import { draw } from '../random.js';

export interface EditorLanguageRecord {
  editor: string;
  language: string;
  metrics: Int32Array;
}

const IDE_FIELDS = [
  M.completions_count,
  M.completions_accepted,
  M.completions_lines_of_code,
  M.completions_suggested_lines_of_code,
  M.chat_messages,
  M.ide_agent_messages,
  M.ide_agent_lines_of_code,
  M.remote_agent_messages,
  M.remote_agent_lines_of_code,
];
const CLI_FIELDS = [
  M.cli_agent_interactive_messages,
  M.cli_agent_interactive_lines_of_code,
  M.cli_agent_non_interactive_messages,
  M.cli_agent_non_interactive_lines_of_code,
];

function isZero(row: Int32Array): boolean {
  return row.every((v) => v === 0);
}

/** Splits `from` into two rows whose fields sum back exactly: floor(v × share) and the rest. */
function split(from: Int32Array, share: number): [Int32Array, Int32Array] {
  const a = new Int32Array(METRIC_COUNT);
  const b = new Int32Array(METRIC_COUNT);
  for (let k = 0; k < METRIC_COUNT; k++) {
    a[k] = Math.floor(from[k]! * share);
    b[k] = from[k]! - a[k]!;
  }
  return [a, b];
}

/**
 * One identity's day, divided by editor (IDE work vs CLI work) and language. The records' metrics add
 * up exactly to the identity's daily metrics, so every endpoint tells one consistent story.
 */
export function editorLanguageRecords(
  org: Organization,
  index: number,
  day: number,
  metrics: Int32Array,
): EditorLanguageRecord[] {
  const identity = org.identities[index]!;
  const ide = new Int32Array(METRIC_COUNT);
  const cli = new Int32Array(METRIC_COUNT);
  for (const k of IDE_FIELDS) ide[k] = metrics[k]!;
  for (const k of CLI_FIELDS) cli[k] = metrics[k]!;
  const ideAgent = metrics[M.ide_agent_messages]! + metrics[M.remote_agent_messages]!;
  const cliAgent = metrics[M.cli_agent_interactive_messages]! + metrics[M.cli_agent_non_interactive_messages]!;
  const tools = metrics[M.total_tool_calls]!;
  ide[M.total_tool_calls] = ideAgent + cliAgent === 0 ? tools : Math.floor((tools * ideAgent) / (ideAgent + cliAgent));
  cli[M.total_tool_calls] = tools - ide[M.total_tool_calls]!;
  recomputeTotals(ide);
  recomputeTotals(cli);

  const ideEditor = identity.editor === CLI_EDITOR || draw(org.seed, index, day, 30) < 0.06 ? UNKNOWN : identity.editor;
  const [first, second] = identity.languages;
  const share =
    second < 0 ? 1 : Math.min(1, Math.max(0, identity.languageShare + 0.2 * (draw(org.seed, index, day, 31) - 0.5)));
  const records: EditorLanguageRecord[] = [];
  for (const [editor, row] of [
    [ideEditor, ide],
    [CLI_EDITOR, cli],
  ] as const) {
    const [a, b] = split(row, share);
    recomputeTotals(a);
    recomputeTotals(b);
    if (!isZero(a)) records.push({ editor, language: LANGUAGES[first]!, metrics: a });
    if (second >= 0 && !isZero(b)) records.push({ editor, language: LANGUAGES[second]!, metrics: b });
  }
  return records;
}
