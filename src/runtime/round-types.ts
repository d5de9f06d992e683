/**
 * Types of one round (src/runtime/round.ts): what a round needs ({@link RoundDeps}) and what it
 * decides next ({@link NextStep}).
 */
import type { ModelPort } from '../model/port.js';
import type { CircuitBreaker } from './circuit-breaker.js';
import type { TurnEvent } from './events.js';
import type { AnyWorkerAgentTool } from './tool.js';
import type { CompiledTool } from './compiled-tool.js';
import type { ToolDefinition } from '../model/port.js';
import type { TurnState } from './turn-state.js';
import type { FinalAnswerGuard, RuntimeOptions } from './turn-types.js';
import type { PriorCall } from './next-step.js';
import type { ApprovalGate } from './approval-gate.js';

export type { NextStep, PriorCall } from './next-step.js';

/** The tools of a turn, compiled once per run. */
export interface RoundTools {
  /** Callable tools by identity (`name` / `namespace.name`), tool_search included when used. */
  callable: Map<string, AnyWorkerAgentTool>;
  deferred: CompiledTool[];
  /** Deferred identities loaded so far (mirrored into `state.loaded`). */
  loaded: Set<string>;
  /** Names and identities of the turn's tools (to spot tool calls written as text). */
  toolNames: ReadonlySet<string>;
  /** The request's tool definitions for the current loaded set / restriction. */
  definitions(onlyTools: string[] | undefined): ToolDefinition[];
}

export interface RoundDeps<TTurn = unknown> {
  model: ModelPort;
  modelName: string;
  instructions?: string;
  toolChoice: 'auto' | 'required' | 'none';
  maxSteps: number;
  options: RuntimeOptions;
  tools: RoundTools;
  breaker: CircuitBreaker;
  signal: AbortSignal;
  /** Serialized event sink (never throws). */
  emit: (event: TurnEvent) => Promise<void>;
  /** Seq of the last event stored (for {@link PendingRound.afterSeq}). */
  lastSeq: () => number;
  turnContext: TTurn;
  finalAnswerGuard?: FinalAnswerGuard;
  /** Store the state mid-round: after the model response, before any of its calls runs. */
  checkpoint: (state: TurnState) => Promise<void>;
  /** For a resumed pending round: what the event log recorded per call_id. */
  priorCalls?: ReadonlyMap<string, PriorCall>;
  /** The turn's approval gate (./approval-gate.ts); unset: no call ever waits for approval. */
  approvals?: ApprovalGate;
}
