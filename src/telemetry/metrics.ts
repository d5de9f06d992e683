/**
 * The service's Prometheus metrics (prom-client 15), served by GET /metrics (routes/metrics.ts) in
 * the Prometheus text exposition format. Names carry no prefix and are a public contract, listed
 * in README.md ("Operations"):
 *
 * | name | type | labels | source |
 * |---|---|---|---|
 * | `turns_total` | counter | `status`, `stop_reason` | terminal turn events |
 * | `turn_failures_total` | counter | `error_code` ({@link KNOWN_TURN_ERROR_CODES}, else `other`) | `turn.failed` events |
 * | `turn_duration_seconds` | histogram | — | record `started_at` → terminal event |
 * | `turns_queued`, `turns_running`, `turns_waiting` | gauge | — | the turn service, read once per scrape (queued / waiting from the store) |
 * | `model_request_duration_seconds` | histogram | `model` ({@link BoundedLabel}: MODEL and the first {@link MODEL_LABEL_LIMIT} others, else `other`), `outcome` | the model-port decorator |
 * | `model_tokens_total` | counter | `direction` (`input`/`output`) | usage of each model response |
 * | `tool_calls_total` | counter | `tool` (`unknown` for a name not in the turn's tool set), `outcome` (`ok`/`error`/`cancelled`) | `tool.completed` events |
 * | `tool_duration_seconds` | histogram | `tool` (as above) | `tool.started` → `tool.completed` |
 * | `sse_subscribers` | gauge | — | open live event subscriptions |
 * | `event_log_append_seconds` | histogram | — | every event-log append |
 * | `webhook_deliveries_total` | counter | `outcome` (`delivered`/`retrying`/`failed`) | each delivery attempt |
 * | `trace_export_failed_spans_total` | counter | — | spans of batches the trace exporter failed to deliver (src/telemetry/tracing.ts) |
 *
 * plus prom-client's default process and Node.js metrics (`process_cpu_seconds_total`,
 * `nodejs_eventloop_lag_seconds`, …). One {@link ServiceMetrics} per service instance (its own
 * registry), so several services in one process (tests) do not share counters.
 *
 * Label values that come from outside (a client's `model`, a model's tool names, a provider's
 * error codes) are bounded, so a client or a model cannot grow the number of series without limit.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Turn counts read at scrape time. */
export interface TurnCounts {
  queued: number;
  running: number;
  /** Turns paused waiting for something outside the service (approval, clarification). */
  waiting?: number;
}

/** Distinct `model` label values kept besides MODEL; later new ones are counted as `model="other"`. */
export const MODEL_LABEL_LIMIT = 20;

/**
 * The `error_code` values of `turn_failures_total`: the codes the service itself and its model
 * adapters give a failed turn (README "Turn endings", src/runtime/events.ts
 * TURN_ERROR_CODE_DESCRIPTION) and the common provider codes; `http_<status>` (three digits) is
 * kept too; any other code counts as `other`.
 */
export const KNOWN_TURN_ERROR_CODES: ReadonlySet<string> = new Set([
  // answerless endings
  'max_output_tokens', 'empty_response', 'max_steps', 'content_filter',
  // model requests: the provider's codes
  'rate_limit_exceeded', 'insufficient_quota', 'context_length_exceeded', 'server_error', 'invalid_api_key', 'model_not_found',
  'unknown_url', 'authentication_error', 'permission_error', 'DeploymentNotFound', 'invalid_request_error',
  // model requests: the adapters'
  'connection_error', 'model_timeout', 'stream_interrupted', 'not_event_stream', 'response_failed', 'model_error',
  // the service's own
  'internal_error', 'resume_failed', 'crash_loop', 'binding_unavailable', 'invalid_tool_set',
]);

/** The `error_code` label of a failed turn's `code`: a known code or `http_<3 digits>` as is, else `other`. */
export function errorCodeLabel(code: string): string {
  return KNOWN_TURN_ERROR_CODES.has(code) || /^http_\d{3}$/.test(code) ? code : 'other';
}

/**
 * A label whose values come from outside: the `always` values and the first `limit` other distinct
 * values seen are kept as given; any later new value is `other`. Values kept stay kept for the
 * process's life (a series once exposed keeps its name).
 */
export class BoundedLabel {
  private readonly kept: Set<string>;
  private extra = 0;
  constructor(private readonly limit: number, always: Iterable<string> = []) {
    this.kept = new Set(always);
  }
  /** `value` if kept (or room is left, then it is kept from now on), else `other`. */
  value(value: string): string {
    if (this.kept.has(value)) return value;
    if (this.extra >= this.limit) return 'other';
    this.extra++;
    this.kept.add(value);
    return value;
  }
}

export interface ServiceMetricsOptions {
  /** The configured MODEL: always its own `model` label value. */
  model?: string;
}

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly turnsTotal = new Counter({ name: 'turns_total', help: 'Finished turns by status and stop reason (stop_reason "none" for failed and cancelled turns).', labelNames: ['status', 'stop_reason'] as const, registers: [this.registry] });
  readonly turnFailures = new Counter({ name: 'turn_failures_total', help: `Failed turns by error code (the turn's error.code when it is one the service knows, e.g. invalid_api_key, model_timeout, connection_error, http_503; else "other").`, labelNames: ['error_code'] as const, registers: [this.registry] });
  readonly turnDuration = new Histogram({ name: 'turn_duration_seconds', help: 'Time from a turn starting to run to its terminal event, seconds.', buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800], registers: [this.registry] });
  readonly modelRequestDuration = new Histogram({ name: 'model_request_duration_seconds', help: `Model requests, from sending to the end of the stream, by model (MODEL and the first ${MODEL_LABEL_LIMIT} other models requested, then "other") and outcome (ok, incomplete, failed: the provider reported an error, error: transport failure, aborted).`, labelNames: ['model', 'outcome'] as const, buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 60, 120, 300], registers: [this.registry] });
  readonly modelTokens = new Counter({ name: 'model_tokens_total', help: 'Tokens reported by the model, by direction (input, output).', labelNames: ['direction'] as const, registers: [this.registry] });
  readonly toolCalls = new Counter({ name: 'tool_calls_total', help: 'Tool calls answered, by tool ("unknown": a name not in the turn\'s tool set) and outcome (ok, error, cancelled).', labelNames: ['tool', 'outcome'] as const, registers: [this.registry] });
  readonly toolDuration = new Histogram({ name: 'tool_duration_seconds', help: 'Tool calls from tool.started to tool.completed, seconds.', labelNames: ['tool'] as const, buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 120, 600], registers: [this.registry] });
  readonly sseSubscribers = new Gauge({ name: 'sse_subscribers', help: 'Open live event-stream subscriptions (SSE clients of turns and workflows).', registers: [this.registry] });
  readonly eventLogAppend = new Histogram({ name: 'event_log_append_seconds', help: 'Time to store one event in the event log, seconds.', buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.1, 0.5, 1], registers: [this.registry] });
  readonly webhookDeliveries = new Counter({ name: 'webhook_deliveries_total', help: 'Webhook delivery attempts by outcome (delivered; retrying: failed, another attempt is scheduled; failed: given up).', labelNames: ['outcome'] as const, registers: [this.registry] });

  readonly traceExportFailedSpans = new Counter({ name: 'trace_export_failed_spans_total', help: 'Spans lost because their export to the trace collector failed (OTLP endpoint unreachable or refusing them).', registers: [this.registry] });

  /** The `model` label of a requested model ({@link BoundedLabel}: MODEL and {@link MODEL_LABEL_LIMIT} more). */
  readonly modelLabel: BoundedLabel;

  /** Counts read by the latest {@link scrape}, for the three turn gauges. */
  private counts: TurnCounts = { queued: 0, running: 0 };

  /** @param counts read once at every scrape for the turns_queued/running/waiting gauges. */
  constructor(private readonly readCounts: () => TurnCounts | Promise<TurnCounts>, opts: ServiceMetricsOptions = {}) {
    this.modelLabel = new BoundedLabel(MODEL_LABEL_LIMIT, opts.model ? [opts.model] : []);
    const self = this;
    const gauge = (name: string, help: string, pick: (c: TurnCounts) => number) =>
      new Gauge({ name, help, registers: [this.registry], collect() { this.set(pick(self.counts)); } });
    gauge('turns_queued', 'Turns queued: waiting for a run slot, or for the previous turn they continue (enqueue, interrupt).', (c) => c.queued);
    gauge('turns_running', 'Turns running now.', (c) => c.running);
    gauge('turns_waiting', 'Turns paused waiting for input from outside (approval, clarification).', (c) => c.waiting ?? 0);
    collectDefaultMetrics({ register: this.registry });
  }

  /** The exposition text and its Content-Type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    try {
      this.counts = await this.readCounts();
    } catch {
      // The store did not answer: the gauges keep the last counts; the scrape still succeeds.
    }
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
