import { readOperatorPolicy } from '@roundtable/contracts';
import { AgentCallEntity, PlaygroundCallEntity } from '@roundtable/persistence';
import { startFakeLlmServer, type FakeLlmServer } from '@roundtable/testing';
import { insertQueuedCall, insertRun, PROPOSAL, workerTestInfra, type WorkerTestInfra } from './agent-call.fixture';
import { runPlaygroundCall } from './playground-call';

jest.setTimeout(30_000);

const RUN = 'run_playground01';
const KEY = 'sk-ant-int-playground-0123456789';

/**
 * A playground call at the provider-worker (issue 22): the edited prompt goes to the run's
 * provider through its real SDK, and the reply lands on the playground_calls row alone — the
 * run's calls, usage and events are as they were. Real Postgres, the fake wire server.
 */
describe('runPlaygroundCall', () => {
  let infra: WorkerTestInfra;
  let server: FakeLlmServer;

  beforeAll(async () => {
    infra = await workerTestInfra('playground');
    server = await startFakeLlmServer({ script: { replies: [{ role: 'proposer', match: 'EDITED PROMPT', reply: PROPOSAL, usage: { input_tokens: 40, output_tokens: 20 } }] } });
    const providers = { claude: { type: 'anthropic', api_key_env: 'TEST_ANTHROPIC_KEY', base_url: server.baseUrls.anthropic } };
    await insertRun(infra.ds, RUN, { project: 'pg', objective: 'o', providers } as never);
    await insertQueuedCall(infra.ds, RUN, 1, { provider: 'claude', model: 'claude-haiku-4-5', status: 'completed' } as never);
  });
  afterAll(async () => {
    await server?.close();
    await infra?.close();
  });

  const deps = () => ({ ds: infra.ds, policy: readOperatorPolicy().policy, env: { TEST_ANTHROPIC_KEY: KEY }, pricing: { models: {} } as never });

  async function queued(id: string, messages: { role: string; content: string }[]): Promise<void> {
    await infra.ds.getRepository(PlaygroundCallEntity).insert({
      id, runId: RUN, sourceCallId: `${RUN}-c1`, role: 'proposer', provider: 'claude', model: 'claude-haiku-4-5', schemaName: 'Proposal',
      messages, maxTokens: 500, temperature: 0.2, timeoutMs: 10_000, status: 'queued', requestedBy: 'alice',
    } as never);
  }

  it('asks the provider with the edited prompt and records the reply on the playground row only', async () => {
    const before = await infra.ds.getRepository(AgentCallEntity).count();
    await queued(`${RUN}-pg1`, [{ role: 'system', content: 'You are the proposer.' }, { role: 'user', content: 'EDITED PROMPT: try again' }]);
    await runPlaygroundCall(deps(), RUN, `${RUN}-pg1`);
    const row = await infra.ds.getRepository(PlaygroundCallEntity).findOneByOrFail({ id: `${RUN}-pg1` });
    expect(row).toMatchObject({ status: 'completed', valid: true, errorCode: null, inputTokens: 40, outputTokens: 20, parsed: PROPOSAL });
    expect(row.finishedAt).toBeInstanceOf(Date);
    const sent = server.requests.at(-1)!.body as { messages: { content: string }[] };
    expect(JSON.stringify(sent.messages)).toContain('EDITED PROMPT: try again');
    expect(await infra.ds.getRepository(AgentCallEntity).count()).toBe(before);
    // A redelivery finds the row taken: nothing is asked twice.
    const asked = server.requests.length;
    await runPlaygroundCall(deps(), RUN, `${RUN}-pg1`);
    expect(server.requests.length).toBe(asked);
  });

  it('refuses a provider entry the policy does not allow, asking nobody', async () => {
    await queued(`${RUN}-pg2`, [{ role: 'user', content: 'EDITED PROMPT' }]);
    const asked = server.requests.length;
    await runPlaygroundCall({ ...deps(), env: {} }, RUN, `${RUN}-pg2`);
    const row = await infra.ds.getRepository(PlaygroundCallEntity).findOneByOrFail({ id: `${RUN}-pg2` });
    expect(row.status).toBe('failed');
    expect(row.error).toMatch(/TEST_ANTHROPIC_KEY/);
    expect(server.requests.length).toBe(asked);
  });
});
