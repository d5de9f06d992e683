/**
 * Print the OpenAPI component schemas of every SSE workflow event, derived from the zod schemas in
 * src/workflows/events.ts, for pasting into openapi.yaml under `components.schemas`.
 *
 * Usage: npx tsx scripts/openapi-workflow-events.ts
 */
import { stringify } from 'yaml';
import { workflowEventComponents } from '../src/workflows/event-schemas.js';

process.stdout.write(stringify(workflowEventComponents(), { lineWidth: 0 }));
