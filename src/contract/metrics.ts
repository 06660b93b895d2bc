/** The 16 integer fields of the upstream "metrics object", in the order the spec lists them. */
export const METRIC_FIELDS = [
  'total_modified_lines_of_code',
  'total_messages',
  'total_tool_calls',
  'completions_count',
  'completions_accepted',
  'completions_lines_of_code',
  'completions_suggested_lines_of_code',
  'chat_messages',
  'remote_agent_messages',
  'remote_agent_lines_of_code',
  'ide_agent_messages',
  'ide_agent_lines_of_code',
  'cli_agent_interactive_messages',
  'cli_agent_interactive_lines_of_code',
  'cli_agent_non_interactive_messages',
  'cli_agent_non_interactive_lines_of_code',
] as const;

export type MetricField = (typeof METRIC_FIELDS)[number];
export type Metrics = Record<MetricField, number>;
export const METRIC_COUNT = METRIC_FIELDS.length;
