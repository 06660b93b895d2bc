import {
  context,
  createContextKey,
  isSpanContextValid,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { VERSION } from '../version.js';

/** Whether spans are exported (a tracer provider is registered): set by the setup, runtime/telemetry-sdk.ts. */
let exporting = false;
export const setTracesExported = (on: boolean) => void (exporting = on);

const TENANT = createContextKey('org-analytics-mcp tenant');
const tracer = () => trace.getTracer('org-analytics-mcp', VERSION);

/** What a failure is called on a span or a label: the error's kind (one of a fixed few), else its class's name. */
export function errorType(error: unknown): string {
  const kind = (error as { kind?: unknown } | null)?.kind;
  return typeof kind === 'string' ? kind : error instanceof Error ? error.name : 'unknown';
}

/**
 * Runs `fn` in a child span of the active one, ended when `fn` settles. With no span exported and no trace to
 * continue, `fn` runs as it is: there is nothing to record, nor anything to pass on.
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span | undefined) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  if (!exporting && !trace.getActiveSpan()) return fn(undefined);
  return tracer().startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', errorType(error));
      throw error;
    } finally {
      span.end();
    }
  });
}

/** `fn` in `parent`'s context, within a span of its own (see inSpan). */
export const inSpanOf = <T>(
  parent: Context,
  name: string,
  attributes: Attributes,
  fn: (span: Span | undefined) => Promise<T>,
  kind?: SpanKind,
): Promise<T> => context.with(parent, () => inSpan(name, attributes, fn, kind));

/**
 * The context a tool call continues: the W3C trace context of its `_meta` (2026-07-28 clients), else of its HTTP
 * request's headers; with the caller's tenant, by name, for the labels recorded beneath it.
 */
export function callContext(
  meta: Record<string, unknown> | undefined,
  headers: { get(name: string): string | null } | undefined,
  tenant: string | null | undefined,
): Context {
  const active = context.active();
  const extracted = (traceparent: unknown, tracestate: unknown) => {
    if (typeof traceparent !== 'string') return undefined;
    const ctx = propagation.extract(active, {
      traceparent,
      ...(typeof tracestate === 'string' ? { tracestate } : {}),
    });
    const span = trace.getSpanContext(ctx);
    return span && isSpanContextValid(span) ? ctx : undefined;
  };
  // _meta first (2026-07-28), else the HTTP headers: a malformed one in _meta does not hide a good header.
  const ctx =
    extracted(meta?.traceparent, meta?.tracestate) ??
    extracted(headers?.get('traceparent'), headers?.get('tracestate')) ??
    active;
  return tenant ? ctx.setValue(TENANT, tenant) : ctx;
}

/** `{ tenant }` when the active call is a tenant's, for the labels of what it records. */
export function tenantLabel(): { tenant?: string } {
  const tenant = context.active().getValue(TENANT);
  return typeof tenant === 'string' ? { tenant } : {};
}

/** The active trace context as W3C headers (`traceparent`, `tracestate`) for a request sent on; none without one. */
export function traceHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  propagation.inject(context.active(), headers);
  return headers;
}

/** The active span's trace and span ids, for a log line; undefined outside any trace. */
export function traceIds(): { trace_id: string; span_id: string } | undefined {
  const span = trace.getActiveSpan()?.spanContext();
  return span && isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : undefined;
}

export { SpanKind };
