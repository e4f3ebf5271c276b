import { readOperatorPolicy, type OperatorPolicy } from '@roundtable/contracts';
import { AgentCallEntity, OutboxEntity, PlaygroundCallEntity } from '@roundtable/persistence';
import { ApiHarness, demoConfig, startApi } from './api-test-harness';

jest.setTimeout(30_000);

/**
 * The playground at the api (issue 22): a run's call asked again with an edited prompt, model or
 * provider is a playground_calls row and a playground.call job on the provider's queue, never a
 * call of the run; the provider must be the run's, the cap is the operator's, and a read token
 * may only look.
 */
const TOKENS = { writer: 'w'.repeat(24), reader: 'r'.repeat(24) };
let api: ApiHarness;
let off: ApiHarness;

async function start(playground: OperatorPolicy['playground']): Promise<ApiHarness> {
  const { policy } = readOperatorPolicy();
  return startApi({ API_TOKENS: [{ name: 'writer', token: TOKENS.writer, role: 'write' }, { name: 'reader', token: TOKENS.reader, role: 'read' }] }, { policy: { ...policy, playground } });
}

beforeAll(async () => {
  [api, off] = await Promise.all([start({ max_calls_per_run: 2, max_tokens_per_call: 300 }), start({ max_calls_per_run: 0, max_tokens_per_call: 4096 })]);
});
afterAll(async () => {
  await Promise.all([api?.close(), off?.close()]);
});

async function call(h: ApiHarness, method: 'GET' | 'POST', path: string, token: string, body?: unknown) {
  const res = await fetch(`${h.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> & { error?: string; message?: string; issues?: { path: string }[] } };
}

/** A run with one recorded proposer call, as the orchestrator would have left it. */
async function runWithCall(h: ApiHarness): Promise<{ runId: string; callId: string }> {
  const res = await call(h, 'POST', '/v1/runs', TOKENS.writer, demoConfig());
  const runId = res.json.id as string;
  const callId = `${runId}-c1`;
  await h.ds.getRepository(AgentCallEntity).insert({
    id: callId, runId, seq: 1, stage: 'PROPOSE', role: 'proposer', provider: 'replay', model: 'claude-sonnet-4-5', label: 'P1', attempt: 1, status: 'completed',
    promptHash: 'h', messages: [{ role: 'system', content: 'You are the proposer.' }, { role: 'user', content: 'the original prompt' }], schemaName: 'Proposal', maxTokens: 4096, temperature: 0.2, timeoutMs: 60_000,
  } as never);
  return { runId, callId };
}

describe('POST /v1/runs/:id/calls/:callId/playground', () => {
  it('queues the edited call as a playground row and a job on the provider queue, outside the run, capped per run', async () => {
    const { runId, callId } = await runWithCall(api);
    const edited = [{ role: 'system', content: 'You are the proposer.' }, { role: 'user', content: 'an edited prompt' }];
    const res = await call(api, 'POST', `/v1/runs/${runId}/calls/${callId}/playground`, TOKENS.writer, { messages: edited, model: 'claude-haiku-4-5' });
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ id: `${runId}-pg1`, source_call_id: callId, provider: 'replay', model: 'claude-haiku-4-5', status: 'queued', messages: edited, requested_by: 'writer' });
    const row = await api.ds.getRepository(PlaygroundCallEntity).findOneByOrFail({ id: `${runId}-pg1` });
    expect(row.maxTokens).toBe(300); // the policy's max_tokens_per_call caps the call's 4096
    const [job] = await api.ds.getRepository(OutboxEntity).find({ where: { runId, jobName: 'playground.call' } });
    expect(job).toMatchObject({ queue: 'agent.replay', payload: { runId, playgroundId: `${runId}-pg1` } });
    // Not the run's: it has one call, as before.
    expect(await api.ds.getRepository(AgentCallEntity).countBy({ runId })).toBe(1);
    const listed = await call(api, 'GET', `/v1/runs/${runId}/calls/${callId}/playground`, TOKENS.reader);
    expect((listed.json as unknown as unknown[]).length).toBe(1);
    // Left out, the original's prompt is asked again; the third is past the cap.
    expect((await call(api, 'POST', `/v1/runs/${runId}/calls/${callId}/playground`, TOKENS.writer, {})).json.messages).toEqual([
      { role: 'system', content: 'You are the proposer.' },
      { role: 'user', content: 'the original prompt' },
    ]);
    const third = await call(api, 'POST', `/v1/runs/${runId}/calls/${callId}/playground`, TOKENS.writer, {});
    expect(third.status).toBe(409);
    expect(third.json).toMatchObject({ error: 'playground_cap', message: expect.stringContaining('playground.max_calls_per_run') });
  });

  it('refuses a provider the run does not have, a bad field, a read token, and a policy with the playground off, each saying why', async () => {
    const { runId, callId } = await runWithCall(api);
    const path = `/v1/runs/${runId}/calls/${callId}/playground`;
    const stranger = await call(api, 'POST', path, TOKENS.writer, { provider: 'openai' });
    expect(stranger.status).toBe(400);
    expect(stranger.json.issues).toEqual([{ path: 'provider', message: expect.stringContaining('"openai" is not one of the run\'s providers (replay)') }]);
    const typo = await call(api, 'POST', path, TOKENS.writer, { mesages: [] });
    expect(typo.status).toBe(400);
    expect(typo.json.issues?.[0].path).toBe('mesages');
    expect((await call(api, 'POST', path, TOKENS.reader, {})).status).toBe(403);
    expect((await call(api, 'POST', `/v1/runs/${runId}/calls/nope/playground`, TOKENS.writer, {})).status).toBe(404);
    const closed = await runWithCall(off);
    const refused = await call(off, 'POST', `/v1/runs/${closed.runId}/calls/${closed.callId}/playground`, TOKENS.writer, {});
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ error: 'playground_off', message: expect.stringContaining('playground.max_calls_per_run is 0') });
    expect(await api.ds.getRepository(PlaygroundCallEntity).countBy({ runId })).toBe(0);
  });
});
