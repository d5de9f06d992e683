/**
 * Brain pages over REST, and recall/get_page in a turn created with `brain: true` (real service,
 * real openai SDK against the scripted Responses server).
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { spec, validateResponse } from '../e2e/support/spec.js';
import { routedEntries, toolNames, toolOutputs } from '../workflows/support.js';

const harness = useScriptedService();

const page = (agent: string, slug: string) => `/v1/agents/${agent}/brain/pages/${slug}`;

describe('brain pages over REST', () => {
  it('creates (201), replaces (200), reads, lists and deletes pages', async () => {
    const created = await api(harness.svc.url, 'PUT', page('rest', 'runbook'), { title: 'Runbook', markdown: '# Steps\n1. restart' });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(page('rest', 'runbook'));
    expect(created.body).toMatchObject({ agent_id: 'rest', slug: 'runbook', title: 'Runbook' });
    const replaced = await api(harness.svc.url, 'PUT', page('rest', 'runbook'), { title: 'Runbook v2', markdown: 'new' });
    expect(replaced.status).toBe(200);
    expect((await api(harness.svc.url, 'GET', page('rest', 'runbook'))).body).toMatchObject({ title: 'Runbook v2', markdown: 'new' });
    await api(harness.svc.url, 'PUT', page('rest', 'alpha'), { title: 'A', markdown: 'a' });
    const list = await api(harness.svc.url, 'GET', '/v1/agents/rest/brain/pages?limit=1');
    expect(list.body.data.map((p: { slug: string }) => p.slug)).toEqual(['alpha']);
    const next = await api(harness.svc.url, 'GET', `/v1/agents/rest/brain/pages?limit=1&cursor=${list.body.next_cursor}`);
    expect(next.body).toMatchObject({ data: [{ slug: 'runbook', bytes: 3 }], next_cursor: null });
    expect((await api(harness.svc.url, 'DELETE', page('rest', 'runbook'))).body).toEqual({ agent_id: 'rest', slug: 'runbook', deleted: true });
    const gone = await api(harness.svc.url, 'GET', page('rest', 'runbook'));
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('page_not_found');
    expect((await api(harness.svc.url, 'DELETE', page('rest', 'runbook'))).status).toBe(404);
  });

  it('serves a slug of the documented maximum, 128 characters, under an agent id of its maximum, 64; a slug one longer is 414 uri_too_long naming 128', async () => {
    const pattern = new RegExp(spec.components.parameters.PageSlug.schema.pattern);
    const agent = 'a'.repeat(64);
    const longest = 'b'.repeat(128);
    expect([pattern.test(longest), pattern.test(longest + 'b')]).toEqual([true, false]);
    const created = await api(harness.svc.url, 'PUT', page(agent, longest), { title: 'Longest', markdown: 'x' });
    expect([created.status, created.body.slug, created.body.agent_id]).toEqual([201, longest, agent]);
    expect((await api(harness.svc.url, 'GET', page(agent, longest))).body).toMatchObject({ slug: longest, title: 'Longest' });
    expect((await api(harness.svc.url, 'DELETE', page(agent, longest))).body).toEqual({ agent_id: agent, slug: longest, deleted: true });
    const tooLong = await api(harness.svc.url, 'PUT', page(agent, longest + 'b'), { title: 'x', markdown: '' });
    expect(tooLong.status).toBe(414);
    expect(tooLong.body.error).toMatchObject({ code: 'uri_too_long', details: { max_param_length: 128 } });
    expect(tooLong.body.error.message).toMatch(/^a path parameter is longer than 128 characters: .*a brain page slug, has at most 128\); check the URL$/);
    expect(validateResponse('/v1/agents/{agent_id}/brain/pages/{slug}', 'put', 414, tooLong.body)).toEqual([]);
  });

  it('rejects bad slugs, bad agent ids and bodies with 400', async () => {
    expect((await api(harness.svc.url, 'PUT', page('rest', '.hidden'), { title: 'x', markdown: '' })).status).toBe(400);
    expect((await api(harness.svc.url, 'PUT', page('bad%20agent', 'ok'), { title: 'x', markdown: '' })).status).toBe(400);
    expect((await api(harness.svc.url, 'PUT', page('rest', 'ok'), { title: '', markdown: '' })).status).toBe(400);
    expect((await api(harness.svc.url, 'PUT', page('rest', 'ok'), { title: 'x', markdown: 'y', extra: 1 })).status).toBe(400);
  });

  it('refuses a blank title and markdown over 512 KiB with 400 invalid_page naming each problem and what to send, details [{path, code, message}], as openapi.yaml documents', async () => {
    const markdown = 'é'.repeat(300 * 1024);
    const r = await api(harness.svc.url, 'PUT', page('rest', 'big'), { title: '  ', markdown });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      error: {
        code: 'invalid_page',
        message:
          'title must not be empty or only whitespace: send a short title for the page; markdown must be at most 524288 bytes (UTF-8), got 614400: split the text into several pages',
        details: [
          { path: 'title', code: 'too_small', message: 'must not be empty or only whitespace: send a short title for the page' },
          { path: 'markdown', code: 'too_big', message: 'must be at most 524288 bytes (UTF-8), got 614400: split the text into several pages' },
        ],
      },
    });
    expect(validateResponse('/v1/agents/{agent_id}/brain/pages/{slug}', 'put', 400, r.body)).toEqual([]);
    expect(spec.components.responses.BrainBadRequest.description).toContain('invalid_page');
    expect((await api(harness.svc.url, 'GET', page('rest', 'big'))).status).toBe(404);
  });
});

describe('recall and get_page in a turn', () => {
  it('finds pages written over REST and reads one by its reference', async () => {
    await api(harness.svc.url, 'PUT', page('mind', 'deploy-guide'), {
      title: 'Deploy guide',
      markdown: 'To deploy, build the image and run it with a volume for DATA_DIR. Rollback: redeploy the previous tag.',
    });
    await api(harness.svc.url, 'PUT', page('mind', 'lunch'), { title: 'Lunch', markdown: 'Pizza on Fridays.' });
    await api(harness.svc.url, 'PUT', page('other', 'deploy-secret'), { title: 'Other agent deploy', markdown: 'deploy deploy' });
    const input = 'how do we roll back a deploy?';
    harness.model.push(
      ...routedEntries({
        [input]: [
          { output: [functionCall('recall', { query: 'rollback deploy' })] },
          { output: [functionCall('get_page', { reference: 'deploy-guide' })] },
          { output: [message('Redeploy the previous tag.')] },
        ],
      }),
    );
    const r = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input, agent_id: 'mind', brain: true, tools: [] });
    expect(r.body).toMatchObject({ status: 'completed', output_text: 'Redeploy the previous tag.' });
    const reqs = harness.model.requests.filter((q) => q.body.input[0]?.content === input);
    expect(toolNames(reqs[0].body)).toEqual(['get_page', 'recall']);
    const [recall, got] = toolOutputs(reqs[2].body);
    expect(recall).toMatch(/^1 result for "rollback deploy", best first:\n1\. Deploy guide \(reference: deploy-guide\)/);
    expect(recall).toContain('**deploy**');
    expect(recall).not.toContain('deploy-secret');
    expect(got).toContain('# Deploy guide\n(reference: deploy-guide');
    expect(got).toContain('Rollback: redeploy the previous tag.');
  });

  it('leaves recall and get_page out of a turn without brain: true', async () => {
    const input = 'no brain here';
    harness.model.push(...routedEntries({ [input]: [{ output: [message('ok')] }] }));
    const r = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input, agent_id: 'mind', tools: ['todo'] });
    expect(r.body.status).toBe('completed');
    const req = harness.model.requests.filter((q) => q.body.input[0]?.content === input)[0].body;
    expect(toolNames(req)).not.toContain('recall');
    expect(toolNames(req)).not.toContain('get_page');
  });

  it('gives get_page an Error: for an unknown reference', async () => {
    const input = 'read a missing page';
    harness.model.push(
      ...routedEntries({
        [input]: [{ output: [functionCall('get_page', { reference: 'nope' })] }, { output: [message('none')] }],
      }),
    );
    await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input, agent_id: 'mind', brain: true, tools: [] });
    const last = harness.model.requests.filter((q) => q.body.input[0]?.content === input).at(-1)!.body;
    expect(toolOutputs(last)[0]).toMatch(/^Error: .*no brain page with reference "nope"/);
  });
});
