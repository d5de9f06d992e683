/**
 * Print the OpenAPI component schemas of every SSE job event, derived from the zod schemas in
 * src/jobs/events.ts, for pasting into openapi.yaml under `components.schemas`.
 *
 * Usage: npx tsx scripts/openapi-job-events.ts
 */
import { stringify } from 'yaml';
import { jobEventComponents } from '../src/jobs/event-schemas.js';

process.stdout.write(stringify(jobEventComponents(), { lineWidth: 0 }));
