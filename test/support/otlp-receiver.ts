import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as OTLP/HTTP JSON carries it, with the service name of its resource. */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes: { key: string; value: { stringValue?: string; intValue?: number | string } }[];
  status?: { code?: number; message?: string };
  service: string;
  /** The name of the instrumentation scope the span came under. */
  scope: string | undefined;
}

export interface OtlpReceiver {
  url: string;
  /** Every span received, in order. */
  spans: OtlpSpan[];
  /** `<method> <path> <content type>` of each export request. */
  paths: string[];
  close(): Promise<void>;
}

/** A local OTLP/HTTP receiver on loopback: every JSON export request's spans, with their resource's service name. */
export async function otlpReceiver(): Promise<OtlpReceiver> {
  const spans: OtlpSpan[] = [];
  const paths: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      paths.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
      for (const rs of (JSON.parse(body) as { resourceSpans: any[] }).resourceSpans) {
        const service = rs.resource.attributes.find((a: any) => a.key === 'service.name')?.value.stringValue;
        for (const ss of rs.scopeSpans) for (const span of ss.spans) spans.push({ ...span, service, scope: ss.scope?.name });
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, spans, paths, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A span's attributes by key, integers as numbers; any other value (an empty one included) as it came. */
export const spanAttributes = (span: OtlpSpan | undefined): Record<string, unknown> =>
  Object.fromEntries(
    (span?.attributes ?? []).map((a) => [a.key, a.value.stringValue ?? (a.value.intValue === undefined ? a.value : Number(a.value.intValue))]),
  );
