/**
 * Tracing setup (OpenTelemetry JS SDK 2.x, `@opentelemetry/sdk-trace`): off unless the config
 * says traces are exported (`config.tracing`: OTEL_EXPORTER_OTLP_ENDPOINT,
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_TRACES_EXPORTER set) or a test passes an exporter.
 * When off nothing here runs: no provider, no context manager, and the decorators in this folder
 * are not applied (bench/telemetry.ts measures that path).
 *
 * When on:
 * - exporter: OTLP over HTTP to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else
 *   OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`, with JSON bodies (`@opentelemetry/exporter-trace-otlp-http`,
 *   the default) or protobuf bodies (`@opentelemetry/exporter-trace-otlp-proto`) as
 *   OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL, says; the
 *   exporter itself reads OTEL_EXPORTER_OTLP_HEADERS / _TIMEOUT / _COMPRESSION. `console` prints
 *   spans to stdout.
 * - a failed export is logged at `warn` (once per streak of failures, then a `recovered` line)
 *   and its spans counted in `trace_export_failed_spans_total` ({@link ReportingExporter});
 * - batch span processor tuned by OTEL_BSP_SCHEDULE_DELAY, OTEL_BSP_MAX_QUEUE_SIZE,
 *   OTEL_BSP_MAX_EXPORT_BATCH_SIZE, OTEL_BSP_EXPORT_TIMEOUT; sampler from OTEL_TRACES_SAMPLER(_ARG)
 *   (default `parentbased_always_on`; src/config.ts refuses unknown samplers and ratios, and
 *   OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL `grpc`); resource: service.name = OTEL_SERVICE_NAME plus
 *   OTEL_RESOURCE_ATTRIBUTES. Names per https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/.
 * - the AsyncLocalStorage context manager and the W3C trace-context propagator are installed
 *   globally (the HTTP server spans of @fastify/otel read `traceparent` through it).
 * - every span's URL attributes (`url.full`, `url.path`, `url.query`, `http.url`, `http.target`)
 *   have their token-like query parameters masked as `[redacted]` — the same masking as the logs
 *   ({@link redactUrl}) — when the span starts and again when it ends, before any exporter sees it.
 * - {@link Tracing.startSpan} can start a root span with a chosen trace id: a turn's trace id is
 *   fixed when the turn is created (stored with it) so a run after a restart continues that trace.
 */
import { context, propagation, trace, type Context, type Span, type SpanOptions, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, W3CTraceContextPropagator, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OTLPProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  RandomIdGenerator,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type IdGenerator,
  type Sampler,
  type Span as SdkSpan,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import { redactUserinfo, type Config } from '../config.js';
import { FailureLog, type FailureLogger } from '../failure-log.js';
import type { ServiceMetrics } from './metrics.js';
import { redactQuery, redactUrl } from '../http/stream-token.js';

export interface Tracing {
  readonly tracer: Tracer;
  /** The SDK provider (given to @fastify/otel). */
  readonly provider: TracerProvider;
  /** Record prompts, arguments and outputs (OTEL_RECORD_CONTENT=true). */
  readonly recordContent: boolean;
  /**
   * Start a span under `parent`; when `parent` holds no span, start a root span whose trace id
   * is `rootTraceId` (32 lowercase hex) instead of a random one.
   */
  startSpan(name: string, options: SpanOptions, parent: Context, rootTraceId?: string): Span;
  /** Flush and stop exporting (call once, at shutdown). */
  shutdown(): Promise<void>;
}

/** An id generator that hands out one chosen trace id for the next root span. */
class ChosenTraceIds implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  next: string | undefined;
  generateTraceId = (): string => {
    const id = this.next;
    this.next = undefined;
    return id ?? this.random.generateTraceId();
  };
  generateSpanId = (): string => this.random.generateSpanId();
}

/** Span attributes that carry a request's URL, target or query string (HTTP semantic conventions, current and older names). */
export const URL_ATTRIBUTES = ['url.full', 'url.path', 'url.query', 'http.url', 'http.target'] as const;

/** Mask the token-like query parameters in `span`'s URL attributes (see {@link redactUrl}). */
function redactSpanUrls(span: SdkSpan): void {
  for (const key of URL_ATTRIBUTES) {
    const value = span.attributes[key];
    if (typeof value !== 'string') continue;
    const masked = key === 'url.query' ? redactQuery(value) : redactUrl(value);
    if (masked !== value) span.setAttribute(key, masked);
  }
}

/**
 * The first span processor: masks tokens in URL attributes when a span starts (attributes given
 * to `startSpan`) and when it is ending (attributes set later), so no exporter sees them.
 */
class UrlRedactingProcessor implements SpanProcessor {
  onStart(span: SdkSpan): void {
    redactSpanUrls(span);
  }
  onEnding(span: SdkSpan): void {
    redactSpanUrls(span);
  }
  onEnd(): void {}
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

function envNumber(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const v = env[name]?.trim();
  if (!v) return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/**
 * The sampler named by OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG (spec names; both checked by
 * src/config.ts, which refuses the start for a value not in TRACES_SAMPLERS or a ratio
 * outside 0..1). Unset: `parentbased_always_on`, ratio 1.
 */
export function samplerFromConfig(config: Pick<Config, 'OTEL_TRACES_SAMPLER' | 'OTEL_TRACES_SAMPLER_ARG'>): Sampler {
  const ratio = config.OTEL_TRACES_SAMPLER_ARG ?? 1;
  switch (config.OTEL_TRACES_SAMPLER) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** The OTLP/HTTP traces URL from the config (signal-specific endpoint wins, as the spec says). */
export function otlpTracesUrl(config: Pick<Config, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'>): string | undefined {
  if (config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (config.OTEL_EXPORTER_OTLP_ENDPOINT) return `${config.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`;
  return undefined;
}

/**
 * An exporter that reports its failures: every batch it fails to deliver (after the OTLP
 * exporter's own retries) goes to `failures` (a {@link FailureLog} at `warn`: the first failure of
 * a streak and each new error, a summary at most once a minute while it lasts, one `recovered`
 * line at `info` when a batch goes through again) and adds its spans to `lost` (the
 * `trace_export_failed_spans_total` counter). Spans are otherwise passed on unchanged.
 */
export class ReportingExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly failures: FailureLog,
    private readonly lost?: (spans: number) => void,
  ) {}
  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) {
        this.failures.succeeded();
      } else {
        this.lost?.(spans.length);
        this.failures.failed(result.error ?? new Error('the exporter reported a failure without an error'), { spans: spans.length });
      }
      resultCallback(result);
    });
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

let globalsInstalled = false;

/**
 * Start tracing, or return undefined when it is off. `exporter` (tests) replaces the configured
 * one and is fed synchronously (simple span processor); `env` is read for the OTEL_BSP_*,
 * sampler and resource variables (default process.env).
 */
export function startTracing(
  config: Config,
  opts: { exporter?: SpanExporter; env?: NodeJS.ProcessEnv; log?: FailureLogger; metrics?: ServiceMetrics } = {},
): Tracing | undefined {
  if (!config.tracing && !opts.exporter) return undefined;
  const env = opts.env ?? process.env;
  let processor;
  if (opts.exporter) {
    processor = new SimpleSpanProcessor({ exporter: opts.exporter });
  } else {
    const url = otlpTracesUrl(config);
    const protocol = config.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? config.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/json';
    const exporter: SpanExporter =
      config.OTEL_TRACES_EXPORTER === 'console'
        ? new ConsoleSpanExporter()
        : protocol === 'http/protobuf'
          ? new OTLPProtobufTraceExporter({ url })
          : new OTLPTraceExporter({ url });
    const what = config.OTEL_TRACES_EXPORTER === 'console' ? 'span export to the console' : `span export to ${redactUrl(redactUserinfo(url ?? 'http://localhost:4318/v1/traces'))}`;
    processor = new BatchSpanProcessor({
      exporter: new ReportingExporter(exporter, new FailureLog(opts.log, what, { level: 'warn' }), (n) => opts.metrics?.traceExportFailedSpans.inc(n)),
      scheduledDelayMillis: envNumber(env, 'OTEL_BSP_SCHEDULE_DELAY'),
      maxQueueSize: envNumber(env, 'OTEL_BSP_MAX_QUEUE_SIZE'),
      maxExportBatchSize: envNumber(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
      exportTimeoutMillis: envNumber(env, 'OTEL_BSP_EXPORT_TIMEOUT'),
    });
  }
  const ids = new ChosenTraceIds();
  const resource = resourceFromAttributes({ 'service.name': config.OTEL_SERVICE_NAME }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({ resource, sampler: samplerFromConfig(config), idGenerator: ids, spanProcessors: [new UrlRedactingProcessor(), processor] });
  if (!globalsInstalled) {
    globalsInstalled = true;
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  }
  const tracer = provider.getTracer('turn-service');
  return {
    tracer,
    provider,
    recordContent: config.OTEL_RECORD_CONTENT,
    startSpan(name, options, parent, rootTraceId) {
      if (rootTraceId && !trace.getSpanContext(parent)) ids.next = rootTraceId;
      try {
        return tracer.startSpan(name, options, parent);
      } finally {
        ids.next = undefined;
      }
    },
    shutdown: () => provider.shutdown(),
  };
}
