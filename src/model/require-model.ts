/**
 * The one check every turn-starting request passes (POST /v1/turns, /v1/schedules,
 * /v1/workflows and the tools that start turns): a model endpoint must be configured and a model
 * must be named, by the request or by MODEL.
 */
import { DomainError } from '../errors.js';

/** The message of `model_not_configured` (POST /v1/turns and GET /readyz): what to set. */
export const MODEL_NOT_CONFIGURED = 'no model endpoint is configured: set OPENAI_API_KEY and/or OPENAI_BASE_URL (to try the service without a model key, run `bash scripts/setup npm run demo -- --serve`, which starts it against a scripted local model)';

/** The variables that configure a model endpoint (`details.settings` of `model_not_configured`). */
export const MODEL_ENDPOINT_SETTINGS = ['OPENAI_API_KEY', 'OPENAI_BASE_URL'] as const;

/**
 * The model a new turn (or a schedule's / workflow's future turns) will use.
 * @param endpointConfigured whether a model client exists (OPENAI_API_KEY and/or OPENAI_BASE_URL).
 * @param requested the request's `model`, if any; wins over `fallback`.
 * @param fallback the configured MODEL, if any.
 * @throws DomainError 503 `model_not_configured` without an endpoint (details `{checks: {model:
 *   "not_configured"}, settings: ["OPENAI_API_KEY", "OPENAI_BASE_URL"]}`, as GET /readyz says it);
 *   400 `model_required` when neither the request nor MODEL names a model (details `{settings:
 *   ["MODEL"], field: "model"}`).
 */
export function requireModel(endpointConfigured: boolean, requested: string | null | undefined, fallback: string | undefined): string {
  if (!endpointConfigured) {
    throw new DomainError('model_not_configured', MODEL_NOT_CONFIGURED, 503, { checks: { model: 'not_configured' }, settings: [...MODEL_ENDPOINT_SETTINGS] });
  }
  const model = requested || fallback;
  if (!model) throw new DomainError('model_required', 'no `model` in the request and no MODEL configured: send `model` or set MODEL', 400, { field: 'model', settings: ['MODEL'] });
  return model;
}
