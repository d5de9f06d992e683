/**
 * The spec as it stands is usable by generators: openapi-typescript turns openapi.yaml into types,
 * a program using openapi-fetch against those types compiles under strict TypeScript, and it
 * creates, reads and cancels a turn on the live service (errors come back typed as the envelope),
 * decides a tool approval of a waiting turn,
 * and free-form objects (schedule `metadata`) accept any keys in the generated request types.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionCall, message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { gate } from '../browser/support/gate.js';
import { startService, type BrowserTestService } from '../browser/support/service.js';
import { USAGE_SOURCE } from './usage-source.js';

const OUT = path.resolve('test-output/generated-client');
const BEARER = 'generated-client-token';

let model: ScriptedResponsesServer;
let svc: BrowserTestService;

beforeAll(async () => {
  model = await startScriptedResponsesServer();
  svc = await startService({ modelBaseURL: model.baseURL, env: { AUTH_TOKENS: BEARER } });
});

afterAll(async () => {
  await svc?.close();
  await model?.close();
});

describe('client generated from openapi.yaml', () => {
  it('compiles against the generated types; creates, gets and cancels a turn and decides a tool approval on the live service', async () => {
    // 1. Generate types from the spec as README.md tells users to, with the generator's default
    //    settings (fields the server defaults must stay optional in requests without any flag).
    const ast = await openapiTS(pathToFileURL(path.resolve('openapi.yaml')));
    const types = astToString(ast);
    expect(types).toContain('"/v1/turns/{id}/cancel"');
    mkdirSync(OUT, { recursive: true });
    writeFileSync(path.join(OUT, 'openapi.ts'), types);
    const usageFile = path.join(OUT, 'usage.ts');
    writeFileSync(usageFile, USAGE_SOURCE);

    // 2. The program type-checks (strict) against them.
    const program = ts.createProgram([usageFile], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
      types: [],
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => {
        const where = d.file && d.start !== undefined ? `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}` : '';
        return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      });
    expect(problems).toEqual([]);

    // 3. It runs against the live service: the turn is held at the model so cancel finds it running.
    const hold = gate();
    model.push(async () => {
      await hold.promise;
      return { output: [message('too late')] };
    });
    const usage = (await import(pathToFileURL(usageFile).href)) as typeof import('./usage-shape.js');
    const outcome = await usage.createGetCancel(svc.url, BEARER);
    hold.open();
    expect(outcome).toMatchObject({
      createdStatus: 202,
      eventsLink: expect.stringMatching(/\/events\?stream_token=/),
      gotStatus: expect.stringMatching(/^(queued|running)$/),
      cancelledStatus: 'cancelled',
      missingStatus: 404,
      missingCode: 'not_found',
      invalidStatus: 400,
      invalidCode: 'invalid_request',
      scheduleStatus: 201,
      scheduleMetadata: { via: 'openapi-fetch', n: 1 },
    });
    expect((await svc.services.turns.get(outcome.id))?.status).toBe('cancelled');

    // 4. Tool approvals through the same typed client: waiting, pending_approvals, decide, 409, list.
    model.push(
      { output: [functionCall('todo', { todos: [{ id: '1', content: 'approve me', status: 'in_progress' }] }, { callId: 'call_gen1' })] },
      { output: [message('approved plan')] },
    );
    expect(await usage.approveFlow(svc.url, BEARER)).toEqual({
      waitingStatus: 'waiting',
      pendingCallId: 'call_gen1',
      pendingLabel: null,
      decidedStatus: 'approved',
      conflictStatus: 409,
      conflictCode: 'approval_conflict',
      finalStatus: 'completed',
      listed: ['call_gen1:approved'],
    });
  }, 90_000);
});
