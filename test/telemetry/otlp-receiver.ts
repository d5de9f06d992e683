/**
 * A small OTLP/HTTP trace receiver for tests: `POST /v1/traces` with an OTLP/JSON body
 * (https://opentelemetry.io/docs/specs/otlp/#otlphttp), answered 200 `{}`; spans are flattened with
 * their resource's and their own attributes decoded to plain values. A protobuf body
 * (`application/x-protobuf`) is kept as it came in `protobufBodies` (not decoded) and answered
 * 200 with an empty protobuf message.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  kind: number;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  status: { code?: number; message?: string };
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number; arrayValue?: { values: AnyValue[] } };
const decode = (v: AnyValue): unknown =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.boolValue ?? v.doubleValue ?? v.arrayValue?.values.map(decode);
const attrs = (list: { key: string; value: AnyValue }[] = []) => Object.fromEntries(list.map((a) => [a.key, decode(a.value)]));

export async function startOtlpReceiver(port = 0) {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const protobufBodies: Buffer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      contentTypes.push(String(req.headers['content-type']));
      if (req.headers['content-type'] === 'application/x-protobuf') {
        protobufBodies.push(Buffer.concat(chunks));
        return void res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const rs of body.resourceSpans ?? []) {
        const resource = attrs(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({ name: s.name, traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || undefined, kind: s.kind, attributes: attrs(s.attributes), resource, status: s.status ?? {} });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  const bound = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${bound}`,
    spans,
    contentTypes,
    protobufBodies,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
