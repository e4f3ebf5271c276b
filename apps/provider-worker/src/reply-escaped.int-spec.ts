import { OperatorPolicy } from '@roundtable/contracts';
import { AgentCallEntity } from '@roundtable/persistence';
import { startFakeLlmServer, type FakeLlmServer } from '@roundtable/testing';
import { insertQueuedCall, insertRun, PROPOSAL, workerTestInfra, type WorkerTestInfra } from './agent-call.fixture';
import { AgentCallService } from './agent-call.service';

jest.setTimeout(30_000);

const RUN = 'run_escaped001';
const KEY = 'sk-ant-int-escaped-0123456789';

/**
 * A reply Postgres cannot store as it came (a NUL inside a JSON string, through the real
 * Anthropic SDK from the fake wire server) is recorded once, escaped and flagged: never an
 * interrupted try, never a second request to the provider.
 */
describe('AgentCallService: a reply with a NUL is stored escaped, once', () => {
  let infra: WorkerTestInfra;
  let server: FakeLlmServer;

  beforeAll(async () => {
    server = await startFakeLlmServer({
      apiKey: KEY,
      script: {
        replies: [
          {
            role: 'proposer',
            reply: { ...PROPOSAL, claim: 'peak\u0000tracking' },
            times: 3,
          },
        ],
      },
    });
    infra = await workerTestInfra('rt_int_escaped');
    const config = { project: 'esc', objective: 'x', providers: { anthropic: { type: 'anthropic', api_key_env: 'INT_ESC_KEY', base_url: server.baseUrls.anthropic } }, agents: {} };
    await insertRun(infra.ds, RUN, config, 1);
    await insertQueuedCall(infra.ds, RUN, 1, { provider: 'anthropic', model: 'claude-haiku-4-5' });
  });

  afterAll(async () => {
    await infra?.close();
    await server?.close();
  });

  it('one row, completed and valid, the NUL as the text \\u0000, flagged; the provider asked once', async () => {
    const { ds, producer } = infra;
    const calls = new AgentCallService(ds, producer, {
      retryDelaysMs: [10, 10],
      pricing: { models: {} },
      env: { INT_ESC_KEY: KEY },
      policy: OperatorPolicy.parse({ api_keys: { INT_ESC_KEY: { provider_type: 'anthropic', base_urls: ['http://127.0.0.1:*'] } } }),
    });
    expect(await calls.execute(RUN, `${RUN}-c1`)).toEqual({ kind: 'done', callId: `${RUN}-c1` });
    // A second delivery (what a failed write used to cause) finds the outcome recorded.
    expect(await calls.execute(RUN, `${RUN}-c1`)).toEqual({ kind: 'done', callId: `${RUN}-c1` });
    const rows = await ds.getRepository(AgentCallEntity).find({ where: { runId: RUN } });
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row).toMatchObject({ status: 'completed', valid: true, errorCode: null, responseEscaped: true });
    expect((row.parsed as { claim: string }).claim).toBe('peak\\u0000tracking');
    expect(row.responseText).toContain('peak\\u0000tracking');
    expect(row.responseText).not.toContain('\u0000');
    expect(server.requests).toHaveLength(1);
  });
});
