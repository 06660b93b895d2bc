import { context, propagation } from '@opentelemetry/api';
// The propagator alone, not the package's index: that is a quarter of a megabyte of SDK code to load at start-up.
import { W3CTraceContextPropagator } from '@opentelemetry/core/build/src/trace/W3CTraceContextPropagator.js';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { Telemetry, TelemetryWanted } from './telemetry-sdk.js';

export type { Telemetry };

const OFF: Telemetry = { watch: () => {}, shutdown: async () => {} };

/**
 * The OTLP endpoint of a signal as the OpenTelemetry specification defines it: its own variable as it is, else the
 * common one with `/v1/<signal>` appended; none when the signal's exporter is `none` or no endpoint is set.
 */
export function otlpEndpoint(env: NodeJS.ProcessEnv, signal: 'metrics' | 'traces'): string | undefined {
  const upper = signal.toUpperCase();
  if (env[`OTEL_${upper}_EXPORTER`]?.trim() === 'none') return undefined;
  const own = env[`OTEL_EXPORTER_OTLP_${upper}_ENDPOINT`]?.trim();
  if (own) return own;
  const common = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return common ? `${common.replace(/\/+$/, '')}/v1/${signal}` : undefined;
}

export function telemetryWanted(env: NodeJS.ProcessEnv, prometheus: boolean): TelemetryWanted {
  // The specification's switch for every signal: nothing is exported, /metrics included.
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true')
    return { prometheus: false, otlpMetrics: undefined, otlpTraces: undefined };
  return { prometheus, otlpMetrics: otlpEndpoint(env, 'metrics'), otlpTraces: otlpEndpoint(env, 'traces') };
}

let carried = false;

/**
 * Always: a call's trace context is carried to its upstream requests (`traceparent`) and its log lines, exported
 * or not. The SDK, its exporters and the process metrics are loaded only when something is exported: without an
 * OTLP endpoint and without /metrics, the API's no-ops are all that runs.
 */
export async function startTelemetry(env: NodeJS.ProcessEnv, prometheus: boolean): Promise<Telemetry> {
  if (!carried) {
    carried = true;
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  }
  const wanted = telemetryWanted(env, prometheus);
  if (!wanted.prometheus && !wanted.otlpMetrics && !wanted.otlpTraces) return OFF;
  return (await import('./telemetry-sdk.js')).startSdk(wanted, env);
}
