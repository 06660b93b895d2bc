import { readFileSync } from 'node:fs';

export const dashboard = JSON.parse(
  readFileSync(new URL('../../.ci/grafana-dashboard.json', import.meta.url), 'utf8'),
) as {
  panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
};

/** The metric families the dashboard's queries read (a histogram's by its _bucket, _count or _sum series). */
export function dashboardFamilies(): string[] {
  const names = dashboard.panels.flatMap((p) =>
    p.targets.flatMap((t) => [...t.expr.matchAll(/\b(org_analytics_\w+|mcp_\w+|http_client_\w+|process_\w+)\b/g)]),
  );
  return [...new Set(names.map((m) => m[1]!.replace(/_(bucket|count|sum)$/, '')))].sort();
}
