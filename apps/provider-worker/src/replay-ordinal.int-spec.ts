import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { OperatorPolicy } from '@roundtable/contracts';
import { AgentCallEntity } from '@roundtable/persistence';
import { insertQueuedCall, insertRun, PROPOSAL, workerTestInfra, type WorkerTestInfra } from './agent-call.fixture';
import { AgentCallService } from './agent-call.service';

jest.setTimeout(30_000);

const RUN = 'run_ordinal001';
const proposal = (id: string) => ({ ...PROPOSAL, proposal_id: id });

/**
 * Replay is deterministic under retries: the Nth first try of a role gets the cassette's Nth
 * reply, and a retried or interrupted try gets the reply of the try it repeats, never the next
 * one (which would push every later reply off by one and end the demo in REPLAY_EXHAUSTED).
 */
describe('AgentCallService: the replay ordinal counts first tries only', () => {
  let infra: WorkerTestInfra;
  let ds: DataSource;
  let tmp: string;
  let calls: AgentCallService;

  async function insertCall(seq: number, over: Partial<AgentCallEntity> = {}): Promise<string> {
    const id = await insertQueuedCall(ds, RUN, seq, over);
    await ds.query(`UPDATE runs SET call_seq = GREATEST(call_seq, $2) WHERE id = $1`, [RUN, seq]);
    return id;
  }

  const replyOf = async (id: string) => ((await ds.getRepository(AgentCallEntity).findOneByOrFail({ id })).parsed as { proposal_id: string } | null)?.proposal_id;

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(tmpdir(), 'rt-int-ordinal-'));
    const cassette = path.join(tmp, 'cassette.json');
    writeFileSync(cassette, JSON.stringify({ replies: ['R1', 'R2', 'R3', 'R4'].map((id) => ({ role: 'proposer', reply: proposal(id) })) }));
    infra = await workerTestInfra('rt_int_ordinal');
    ds = infra.ds;
    const config = { project: 'ordinal', objective: 'x', providers: { replay: { type: 'replay', cassette, latency_ms: 0 } }, agents: {} };
    await insertRun(ds, RUN, config);
    calls = new AgentCallService(ds, infra.producer, { retryDelaysMs: [10, 10], pricing: { models: {} }, policy: OperatorPolicy.parse({ cassettes: { roots: [tmp] } }) });
  });

  afterAll(async () => {
    await infra?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('a transient failure retried gets the reply its first try would have had', async () => {
    const first = await insertCall(1);
    await calls.execute(RUN, first);
    expect(await replyOf(first)).toBe('R1');
    // The second question's first try failed with a timeout (the worker recorded it, the engine
    // queued its retry); then a third question was asked before the retry ran.
    const failed = await insertCall(2, { status: 'failed', errorCode: 'TIMEOUT', error: 'no reply', finishedAt: new Date() });
    const retry = await insertCall(3, { retry: 1, retryOf: failed });
    const third = await insertCall(4);
    await calls.execute(RUN, third);
    await calls.execute(RUN, retry);
    expect(await replyOf(retry)).toBe('R2');
    expect(await replyOf(third)).toBe('R3');
  });

  it('an interrupted try (a running row delivered again) is recorded and reported; its retry gets the same reply', async () => {
    const running = await insertCall(5, { status: 'running', startedAt: new Date() });
    const result = await calls.execute(RUN, running);
    expect(result).toEqual({ kind: 'done', callId: running });
    const interrupted = await ds.getRepository(AgentCallEntity).findOneByOrFail({ id: running });
    expect(interrupted).toMatchObject({ status: 'failed', errorCode: 'INTERRUPTED', retryable: true });
    // The worker queued nothing: the retry is the engine's, a row the orchestrator writes (here, the test).
    expect(await ds.getRepository(AgentCallEntity).countBy({ runId: RUN, retryOf: running })).toBe(0);
    const retry = await insertCall(6, { retry: 1, retryOf: running });
    expect(await calls.execute(RUN, retry)).toEqual({ kind: 'done', callId: retry });
    const row = await ds.getRepository(AgentCallEntity).findOneByOrFail({ id: retry });
    expect(row).toMatchObject({ retry: 1, retryOf: running, status: 'completed', error: null, valid: true });
    expect(await replyOf(retry)).toBe('R4');
  });
});
