/**
 * A {@link ModelPort} decorator measuring every model request, whatever adapter is behind it
 * (Responses, Chat Completions):
 * - metrics: `model_request_duration_seconds{model, outcome}` (model bounded by
 *   {@link ServiceMetrics.modelLabel}; outcome `ok` = completed,
 *   `incomplete`, `failed` = the provider reported an error (HTTP error status, `error` or
 *   `response.failed` event), `error` = transport failure (connection refused, stream cut),
 *   `aborted` = the turn was cancelled) and `model_tokens_total{direction}`;
 * - a `chat <model>` span (kind CLIENT, GenAI semantic conventions,
 *   https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/) when tracing is on, child
 *   of the active context (the turn's `invoke_agent`): `gen_ai.operation.name=chat`,
 *   `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.response.id`,
 *   `gen_ai.usage.input_tokens`/`output_tokens`,
 *   `gen_ai.response.finish_reasons`, `error.type` on failure; the request input and the output
 *   text only with OTEL_RECORD_CONTENT=true;
 * - a model connection failure is logged at `error` with the endpoint and its cause (the message
 *   of the `connection_error` ModelError names both, src/model/model-error.ts).
 * Events pass through unchanged and in order; the stream options (`onActivity`) are passed on.
 */
import { context, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { performance } from 'node:perf_hooks';
import type { ModelPort, ModelRequest, ModelStreamEvent, ModelStreamOptions, TranscriptItem } from '../model/port.js';
import type { ServiceMetrics } from './metrics.js';
import type { Tracing } from './tracing.js';

export interface ModelTelemetryDeps {
  metrics: ServiceMetrics;
  tracing: Tracing | undefined;
  log: { error: (o: object, m?: string) => void };
  /** `gen_ai.provider.name` (default `openai`). */
  provider?: string;
}

type Done = Extract<ModelStreamEvent, { type: 'response.done' }>;

/** ModelError codes of transport failures (outcome `error`); any other code is the provider's (`failed`). */
const TRANSPORT_ERRORS = new Set(['connection_error', 'stream_interrupted', 'model_error']);

export function instrumentModel(model: ModelPort, deps: ModelTelemetryDeps): ModelPort {
  return {
    endpoint: model.endpoint,
    async *stream(request: ModelRequest, signal: AbortSignal, options?: ModelStreamOptions) {
      const t0 = performance.now();
      let outcome = 'error';
      let span: Span | undefined;
      if (deps.tracing) {
        span = deps.tracing.tracer.startSpan(
          `chat ${request.model}`,
          { kind: SpanKind.CLIENT, attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': deps.provider ?? 'openai', 'gen_ai.request.model': request.model } },
          context.active(),
        );
        if (deps.tracing.recordContent) span.setAttribute('gen_ai.input.messages', clip(JSON.stringify(request.input)));
      }
      let done: Done | undefined;
      let errorType: string | undefined;
      const items: TranscriptItem[] = [];
      try {
        for await (const event of model.stream(request, signal, options)) {
          if (event.type === 'response.started' && event.response_id) span?.setAttribute('gen_ai.response.id', event.response_id);
          else if (event.type === 'item.done') items.push(event.item);
          else if (event.type === 'response.done') {
            done = event;
            outcome = event.status === 'completed' ? 'ok' : event.status;
            if (event.status === 'failed') errorType = event.error?.code ?? 'response_failed';
          } else if (event.type === 'error') {
            outcome = 'failed';
            errorType = event.code;
          }
          yield event;
        }
        if (signal.aborted) outcome = 'aborted';
        else if (!done && outcome !== 'failed') {
          outcome = 'error';
          errorType = 'stream_interrupted';
        }
      } catch (err) {
        const e = err as { code?: string; message?: string };
        errorType = e.code ?? 'model_error';
        outcome = signal.aborted ? 'aborted' : TRANSPORT_ERRORS.has(errorType) ? 'error' : 'failed';
        if (e.code === 'connection_error') deps.log.error({ model: request.model, err: { message: e.message, code: e.code } }, `model request failed: ${e.message}`);
        span?.setStatus({ code: SpanStatusCode.ERROR, message: e.message });
        throw err;
      } finally {
        deps.metrics.modelRequestDuration.observe({ model: deps.metrics.modelLabel.value(request.model), outcome }, (performance.now() - t0) / 1000);
        const usage = done?.usage;
        if (usage?.input_tokens) deps.metrics.modelTokens.inc({ direction: 'input' }, usage.input_tokens);
        if (usage?.output_tokens) deps.metrics.modelTokens.inc({ direction: 'output' }, usage.output_tokens);
        if (span) finishSpan(span, deps.tracing!, done, items, outcome, errorType);
      }
    },
  };
}

function finishSpan(span: Span, tracing: Tracing, done: Done | undefined, streamed: TranscriptItem[], outcome: string, errorType: string | undefined) {
  if (done?.response_id) span.setAttribute('gen_ai.response.id', done.response_id);
  if (done?.usage) span.setAttributes({ 'gen_ai.usage.input_tokens': done.usage.input_tokens, 'gen_ai.usage.output_tokens': done.usage.output_tokens });
  const finish = outcome === 'ok' ? 'stop' : outcome === 'incomplete' ? (done?.incomplete_reason ?? 'incomplete') : outcome;
  span.setAttribute('gen_ai.response.finish_reasons', [finish]);
  if (tracing.recordContent) {
    const items = streamed.length > 0 ? streamed : (done?.items ?? []);
    const text = items
      .flatMap((i) => (i.type === 'message' ? (typeof i.content === 'string' ? [i.content] : i.content.map((c) => (c.type === 'text' ? c.text : '')) ) : []))
      .join('');
    span.setAttribute('gen_ai.output.messages', clip(JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: text }] }])));
  }
  if (errorType) {
    span.setAttribute('error.type', errorType);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

const clip = (s: string) => (s.length > 8192 ? `${s.slice(0, 8192)}…` : s);
