import { z } from 'zod';
import type { Option } from './cli-options.js';

/**
 * The options of /metrics, part of the server's one table. OTLP export follows the OpenTelemetry variables
 * (OTEL_EXPORTER_OTLP_ENDPOINT, …), as the specification defines them, and has no option of its own.
 */
export const TELEMETRY_OPTIONS = {
  noMetrics: {
    flag: 'no-metrics',
    env: 'ANALYTICS_NO_METRICS',
    kind: 'switch',
    schema: z.boolean().default(false),
    shown: 'off',
    help: 'serve no /metrics over --http, and load no metrics code unless OTEL_EXPORTER_OTLP_ENDPOINT asks for OTLP',
  },
  metricsTokenEnv: {
    flag: 'metrics-token-env',
    env: 'ANALYTICS_METRICS_TOKEN_ENV',
    kind: 'text',
    value: 'NAME',
    schema: z
      .string()
      .regex(
        /^[A-Za-z_][A-Za-z0-9_]*$/,
        '--metrics-token-env / ANALYTICS_METRICS_TOKEN_ENV names an environment variable',
      )
      .optional(),
    shown: 'none',
    help: '/metrics on the --http port asks for the bearer token held in the variable NAME (needed on a bind other than loopback)',
  },
  metricsPort: {
    flag: 'metrics-port',
    env: 'ANALYTICS_METRICS_PORT',
    kind: 'number',
    value: 'N',
    schema: z
      .number({ message: '--metrics-port / ANALYTICS_METRICS_PORT must be a port number, e.g. 9464' })
      .int()
      .min(0)
      .max(65535)
      .optional(),
    shown: 'none: the --http port',
    help: 'serve /metrics on this port of --host instead, without a token (keep the port to the scrapers)',
  },
} as const satisfies Record<string, Option>;
