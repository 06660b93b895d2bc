import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An attribute as OTLP/JSON writes it: a key and one typed value. */
interface KeyValue {
  key: string;
  value: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
}

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

export interface ReceivedPoint {
  metric: string;
  attributes: Record<string, unknown>;
  /** A sum's or gauge's value, or a histogram's count. */
  value: number;
}

/** An OTLP/JSON attribute list as a plain record. */
const plain = (kvs: KeyValue[] = []) =>
  Object.fromEntries(
    kvs.map(({ key, value }) => [key, value.stringValue ?? value.intValue ?? value.doubleValue ?? value.boolValue]),
  );

/**
 * A real OTLP/HTTP receiver on loopback, for the http/json protocol: what reaches /v1/metrics and /v1/traces is
 * kept as it came (the request bodies) and read out as spans and metric points.
 */
export async function startOtlpCollector() {
  const bodies: { metrics: any[]; traces: any[] } = { metrics: [], traces: [] };
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const signal = req.url === '/v1/metrics' ? 'metrics' : req.url === '/v1/traces' ? 'traces' : undefined;
      if (!signal || req.headers['content-type'] !== 'application/json') {
        res.writeHead(415).end();
        return;
      }
      bodies[signal].push(JSON.parse(text));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    bodies,
    spans(): ReceivedSpan[] {
      return bodies.traces.flatMap((b) =>
        b.resourceSpans.flatMap((rs: any) =>
          rs.scopeSpans.flatMap((ss: any) => ss.spans.map((s: any) => ({ ...s, attributes: plain(s.attributes) }))),
        ),
      );
    },
    /** Every point of every export, in order: a cumulative metric's last point is its total. */
    points(): ReceivedPoint[] {
      return bodies.metrics.flatMap((b) =>
        b.resourceMetrics.flatMap((rm: any) =>
          rm.scopeMetrics.flatMap((sm: any) =>
            sm.metrics.flatMap(
              (m: any) =>
                (m.sum ?? m.gauge ?? m.histogram)?.dataPoints.map((p: any) => ({
                  metric: m.name,
                  attributes: plain(p.attributes),
                  value: Number(p.asInt ?? p.asDouble ?? p.count),
                })) ?? [],
            ),
          ),
        ),
      );
    },
    resources(): Array<Record<string, unknown>> {
      return [...bodies.metrics, ...bodies.traces].flatMap((b) =>
        (b.resourceMetrics ?? b.resourceSpans).map((r: any) => plain(r.resource.attributes)),
      );
    },
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

export type OtlpCollector = Awaited<ReturnType<typeof startOtlpCollector>>;
