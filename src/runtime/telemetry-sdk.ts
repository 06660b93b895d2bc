import { diag, DiagLogLevel, metrics, trace } from '@opentelemetry/api';
import { HostMetrics } from '@opentelemetry/host-metrics';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type IMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ConfigError } from '../config/config.js';
import { createLogger, secretScrubber } from '../logger.js';
import { setTracesExported } from '../telemetry/spans.js';
import { VERSION } from '../version.js';
import { watchStore, type StoreGauges } from './telemetry-gauges.js';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** What the environment and the options ask to export. */
export interface TelemetryWanted {
  /** /metrics in Prometheus text (over --http, unless --no-metrics). */
  prometheus: boolean;
  /** OTLP, to OTEL_EXPORTER_OTLP_ENDPOINT or the signal's own endpoint; undefined: not exported. */
  otlpMetrics: string | undefined;
  otlpTraces: string | undefined;
}

export interface Telemetry {
  /** Answers a scrape of /metrics; undefined when metrics are not served. */
  metrics?: (req: IncomingMessage, res: ServerResponse) => void;
  /** Observes the store, the sync and the alerts outbox (once: the first runtime's). */
  watch(gauges: StoreGauges): void;
  /** Exports what is left and stops. */
  shutdown(): Promise<void>;
}

const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

/** http/protobuf by default, http/json accepted (OTEL_EXPORTER_OTLP_[SIGNAL_]PROTOCOL); gRPC is not served here. */
function protocolOf(env: NodeJS.ProcessEnv, signal: 'METRICS' | 'TRACES'): 'json' | 'proto' {
  const given = (env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`] ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim();
  if (!given || given === 'http/protobuf') return 'proto';
  if (given === 'http/json') return 'json';
  throw new ConfigError(
    `OTEL_EXPORTER_OTLP_PROTOCOL=${given} is not supported: use http/protobuf (the default) or http/json, to the collector's OTLP/HTTP port (4318).`,
  );
}

// The bundle's chunk for a CommonJS package exports it as `default` only (as undici's: upstream/transport/http.ts).
const exportsOf = async <T>(loading: Promise<T>): Promise<T> => {
  const m = await loading;
  return (m as { default?: T }).default ?? m;
};

async function metricExporter(url: string, env: NodeJS.ProcessEnv) {
  return protocolOf(env, 'METRICS') === 'json'
    ? new (await exportsOf(import('@opentelemetry/exporter-metrics-otlp-http'))).OTLPMetricExporter({ url })
    : new (await exportsOf(import('@opentelemetry/exporter-metrics-otlp-proto'))).OTLPMetricExporter({ url });
}

async function traceExporter(url: string, env: NodeJS.ProcessEnv) {
  return protocolOf(env, 'TRACES') === 'json'
    ? new (await exportsOf(import('@opentelemetry/exporter-trace-otlp-http'))).OTLPTraceExporter({ url })
    : new (await exportsOf(import('@opentelemetry/exporter-trace-otlp-proto'))).OTLPTraceExporter({ url });
}

/** The service's name (OTEL_SERVICE_NAME, else org-analytics-mcp) and version, with OTEL_RESOURCE_ATTRIBUTES. */
function resourceOf(env: NodeJS.ProcessEnv) {
  const ours = { 'service.name': env.OTEL_SERVICE_NAME?.trim() || 'org-analytics-mcp', 'service.version': VERSION };
  const fromEnv = detectResources({ detectors: [envDetector] });
  return defaultResource().merge(fromEnv).merge(resourceFromAttributes(ours));
}

/** The metrics and trace providers, registered globally, with the readers and exporters wanted. */
export async function startSdk(wanted: TelemetryWanted, env: NodeJS.ProcessEnv): Promise<Telemetry> {
  // An export that fails (no collector, a refusal) is said on stderr, as our warnings are; never on stdout.
  const said = createLogger('warn', secretScrubber([]));
  const none = () => {};
  const warn = (message: string, ...args: unknown[]) =>
    said.warn(`telemetry: ${message}`, args.length ? { detail: args.map(String).join(' ') } : undefined);
  diag.setLogger({ error: warn, warn, info: none, debug: none, verbose: none }, DiagLogLevel.WARN);
  const resource = resourceOf(env);
  const readers: IMetricReader[] = [];
  const prometheus = wanted.prometheus ? new PrometheusExporter({ preventServerStart: true }) : undefined;
  if (prometheus) readers.push(prometheus);
  if (wanted.otlpMetrics) {
    const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL) || 60_000;
    const exporter = await metricExporter(wanted.otlpMetrics, env);
    readers.push(new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: interval }));
  }
  const meters = readers.length ? new MeterProvider({ resource, readers }) : undefined;
  if (meters) {
    metrics.setGlobalMeterProvider(meters);
    new HostMetrics({ meterProvider: meters, metricGroups: ['process.cpu', 'process.memory'] }).start();
  }
  // The sampler is OTEL_TRACES_SAMPLER's (and _ARG's), read by the SDK itself; parent-based always-on by default.
  const tracer = wanted.otlpTraces
    ? new BasicTracerProvider({
        resource,
        spanProcessors: [new BatchSpanProcessor(await traceExporter(wanted.otlpTraces, env))],
      })
    : undefined;
  if (tracer) {
    trace.setGlobalTracerProvider(tracer);
    setTracesExported(true);
  }
  const serializer = new PrometheusSerializer();
  let watching = false;
  return {
    ...(prometheus && {
      metrics: (_req, res) =>
        void prometheus.collect().then(
          ({ resourceMetrics }) =>
            res.writeHead(200, { 'content-type': PROMETHEUS_TEXT }).end(serializer.serialize(resourceMetrics)),
          (error: unknown) =>
            res.writeHead(500, { 'content-type': 'text/plain' }).end(`# collection failed: ${error}\n`),
        ),
    }),
    watch: (gauges) => {
      if (!meters || watching) return;
      watching = true;
      watchStore(meters.getMeter('org-analytics-mcp', VERSION), gauges);
    },
    shutdown: async () => {
      setTracesExported(false);
      await Promise.all([meters?.shutdown(), tracer?.shutdown()]);
      metrics.disable();
      trace.disable();
    },
  };
}
