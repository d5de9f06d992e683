/**
 * The turn's spans, following the OpenTelemetry GenAI semantic conventions
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-agent-spans/):
 *
 * - `invoke_agent` (kind INTERNAL) for one run of a turn: root of the turn's own trace, or a child
 *   of the caller's `traceparent` (src/telemetry/trace-context.ts). Attributes
 *   `gen_ai.operation.name=invoke_agent`, `gen_ai.agent.id`, `gen_ai.request.model`,
 *   `gen_ai.conversation.id` and `turn.id` (the turn id), `turn.status`, `turn.stop_reason`,
 *   `turn.steps`, `gen_ai.usage.input_tokens`/`output_tokens`; status ERROR with `error.type` (the
 *   turn's error code) for a failed turn. The run is executed inside this span's context, so the
 *   `chat <model>` spans of src/telemetry/model-telemetry.ts become its children.
 * - `execute_tool <name>` (INTERNAL) per tool call, built from the typed events (`tool.started` →
 *   start, `tool.completed` → end; a call refused before it started is a zero-length span):
 *   `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type=function`, `turn.tool.outcome`
 *   (`ok`/`error`/`cancelled`), `turn.tool.repaired` (boolean) and `turn.tool.repair` (which
 *   repair step fixed the arguments). Arguments and outputs (`gen_ai.tool.call.arguments`,
 *   `gen_ai.tool.call.result`) only with OTEL_RECORD_CONTENT=true.
 *
 * {@link traceRunTurn} is a decorator of the run function, so neither the loop nor the turn
 * service knows about spans. It also stamps `trace_id` on the `turn.started` event, with tracing
 * on or off.
 */
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { TurnEvent } from '../runtime/events.js';
import type { RunTurnOptions, RunTurnResult } from '../runtime/turn-types.js';
import { parentContext, type TurnTrace } from './trace-context.js';
import type { Tracing } from './tracing.js';
import { toolOutcome } from './turn-metrics.js';

export type RunTurn<T> = (options: RunTurnOptions<T>) => Promise<RunTurnResult>;

export interface TraceRunTurnDeps {
  /** Undefined when tracing is off (then only `trace_id` is stamped on `turn.started`). */
  tracing: Tracing | undefined;
  /** The stored trace of a turn. */
  traceOf: (turnId: string) => TurnTrace | null | undefined;
}

const MAX_CONTENT_CHARS = 8192;
const content = (v: unknown) => {
  const s = typeof v === 'string' ? v : JSON.stringify(v) ?? '';
  return s.length > MAX_CONTENT_CHARS ? `${s.slice(0, MAX_CONTENT_CHARS)}…` : s;
};

export function traceRunTurn<T>(inner: RunTurn<T>, deps: TraceRunTurnDeps): RunTurn<T> {
  return async (opts) => {
    const stored = deps.traceOf(opts.turnId);
    const traceId = stored?.trace_id ?? null;
    const stamp = (event: TurnEvent): TurnEvent => (event.type === 'turn.started' ? { ...event, trace_id: traceId } : event);
    const tracing = deps.tracing;
    if (!tracing) return inner({ ...opts, emit: (event) => opts.emit(stamp(event)) });

    const agentId = (opts.turnContext as { agentId?: unknown } | undefined)?.agentId;
    const span = tracing.startSpan(
      'invoke_agent',
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': opts.modelName,
          'gen_ai.conversation.id': opts.turnId,
          'turn.id': opts.turnId,
          ...(typeof agentId === 'string' ? { 'gen_ai.agent.id': agentId } : {}),
          ...(tracing.recordContent && opts.instructions ? { 'gen_ai.system_instructions': content(opts.instructions) } : {}),
        },
      },
      parentContext(stored),
      traceId ?? undefined,
    );
    const agentCtx = trace.setSpan(context.active(), span);
    const tools = new Map<string, Span>();
    const onEvent = (event: TurnEvent) => {
      if (event.type === 'tool.started') {
        const s = tracing.tracer.startSpan(`execute_tool ${event.name}`, { kind: SpanKind.INTERNAL, attributes: toolAttributes(event.name, event.call_id) }, agentCtx);
        if (tracing.recordContent) s.setAttribute('gen_ai.tool.call.arguments', content(event.arguments));
        tools.set(event.call_id, s);
      } else if (event.type === 'tool.completed') {
        const s = tools.get(event.call_id) ?? tracing.tracer.startSpan(`execute_tool ${event.name}`, { kind: SpanKind.INTERNAL, attributes: toolAttributes(event.name, event.call_id) }, agentCtx);
        tools.delete(event.call_id);
        const outcome = toolOutcome(event);
        s.setAttributes({ 'turn.tool.outcome': outcome, 'turn.tool.repaired': event.repaired !== undefined, ...(event.repaired ? { 'turn.tool.repair': event.repaired } : {}) });
        if (tracing.recordContent) s.setAttribute('gen_ai.tool.call.result', content(event.output));
        if (outcome !== 'ok') {
          s.setAttribute('error.type', outcome === 'cancelled' ? 'cancelled' : 'tool_error');
          s.setStatus({ code: SpanStatusCode.ERROR, message: event.output.slice(0, 300) });
        }
        s.end();
      } else if (event.type === 'turn.failed') {
        span.setAttribute('error.type', event.error.code);
        span.setStatus({ code: SpanStatusCode.ERROR, message: event.error.message });
      }
    };
    let result: RunTurnResult | undefined;
    try {
      result = await context.with(agentCtx, () =>
        inner({
          ...opts,
          emit: (event) => {
            try {
              onEvent(event);
            } catch {
              // spans must never break a turn
            }
            return opts.emit(stamp(event));
          },
        }),
      );
      return result;
    } finally {
      for (const s of tools.values()) s.end();
      if (result) {
        span.setAttributes({
          'turn.status': result.status,
          'turn.steps': result.steps,
          ...(result.usage ? { 'gen_ai.usage.input_tokens': result.usage.input_tokens, 'gen_ai.usage.output_tokens': result.usage.output_tokens } : {}),
          ...(result.stopReason ? { 'turn.stop_reason': result.stopReason } : {}),
        });
        if (result.status === 'failed' && result.error) {
          span.setAttribute('error.type', result.error.code);
          span.setStatus({ code: SpanStatusCode.ERROR, message: result.error.message });
        }
      } else {
        span.setAttributes({ 'turn.status': 'failed', 'error.type': 'internal_error' });
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    }
  };
}

function toolAttributes(name: string, callId: string) {
  return { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.call.id': callId, 'gen_ai.tool.type': 'function' };
}
