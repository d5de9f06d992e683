/**
 * A tool family creator: one per folder under src/tools/. It receives the turn context and returns
 * its tools, or nothing plus a reason (not enabled for this turn, provider not configured, sandbox
 * unavailable, not allowed in this kind of turn).
 */
import type { AnyWorkerAgentTool } from '../runtime/tool.js';
import type { TurnContext } from './context.js';
import type { OutputFilter } from './output-filter.js';

/** What any family may add besides tools: text for the turn's instructions, an output filter. */
export interface FamilyExtras {
  /** Appended to the turn's instructions (after the request's own), e.g. the skills index. */
  instructions?: string;
  /** Every tool result of the turn passes through it (src/assembly/output-filter.ts). */
  outputFilter?: OutputFilter;
}

/**
 * `{tools}`: available. `{unavailable}`: not assembled, and why. `{tools, unavailable}`: partly
 * available — these tools, and the reason the family's other tools are withheld (e.g. a scheduled
 * turn gets read-only schedule tools); the assembler reports both.
 */
export type FamilyResult =
  | ({ tools: AnyWorkerAgentTool[]; unavailable?: string } & FamilyExtras)
  | { tools?: undefined; unavailable: string };

export interface FamilyCreator {
  /** Family name as used in requests (`todo`, `computer`, …) and in `unavailable[].family`. */
  family: string;
  create(ctx: TurnContext): FamilyResult | Promise<FamilyResult>;
}
