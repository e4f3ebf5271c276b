import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { mergePolicy } from './support/calc-repos';
import { getJson, postJson, projectConfigFrom, startPipeline, submitRun, waitFor, type Pipeline } from '@roundtable/testing';
import { backtestRepo, headOf } from './support/backtest-repo';

jest.setTimeout(240_000);

const FIXTURE = path.resolve(__dirname, '../fixtures/build-experiment/project.yaml');

/**
 * A build at autonomy 3 whose critic says NEEDS_EXPERIMENT (issue 24), every service its own
 * process: the build drafts an experiment in a run of its own and waits; the draft waits at its
 * gate until a person approves it; it is locked, run in the sandbox against the build's
 * repository at the commit its worktree was made from, read and reviewed; its KILL answers the
 * critique's question, and the build goes on with it as evidence (the reviser's replay guard
 * checks the prompt holds it) to a REJECT.
 */
describe('a build at autonomy 3 drafts an experiment for a NEEDS_EXPERIMENT (separate processes, sandbox)', () => {
  let pipeline: Pipeline;
  let tmp: string;
  let repo: string;

  const statusOf = async (id: string) => (await getJson<{ status: string; stage: string; verdict: string | null }>(pipeline.api, `/v1/runs/${id}`)).body;
  const untilStatus = (id: string, status: string, ms = 60_000) => waitFor(`run ${id} to be ${status}`, async () => ((await statusOf(id)).status === status ? statusOf(id) : undefined), ms, 100);

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(tmpdir(), 'rt-e2e-build-experiment-'));
    // The operator allows autonomy 3 here, and merging into repositories under `mergeable`.
    const { mergeable, policyFile } = mergePolicy(tmp);
    repo = path.join(mergeable, 'backtest');
    backtestRepo(repo);
    pipeline = await startPipeline({ providerQueues: 'replay,replay_x,replay_a,replay_b', env: { ROUNDTABLE_POLICY: policyFile } });
  });

  afterAll(async () => {
    await pipeline?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('drafts, waits at the gate, is approved, runs, is interpreted, and the build goes on with the decision', async () => {
    const head = headOf(repo);
    const submitted = await submitRun(pipeline.api, projectConfigFrom(FIXTURE, { repo }));
    expect([submitted.status, submitted.status === 202 ? null : submitted.body]).toEqual([202, null]);
    const buildId = submitted.body.id as string;

    // The build stops on its question, and the experiment it started waits for a person.
    expect(await untilStatus(buildId, 'needs_input')).toMatchObject({ stage: 'HALTED' });
    const childId = `${buildId}_q1`;
    const experimentId = `exp_${childId}`;
    expect(await untilStatus(childId, 'awaiting_approval')).toMatchObject({ stage: 'LOCK' });
    const draft = (await getJson<Record<string, unknown>>(pipeline.api, `/v1/experiments/${experimentId}`)).body;
    expect(draft).toMatchObject({ status: 'draft', commit: head, preregistration: null, source: { build_run_id: buildId, question_id: 'Q1' } });
    // Nothing ran before the approval.
    expect(await pipeline.sql(`SELECT 1 FROM workspace_ops WHERE run_id = $1`, [childId])).toEqual([]);

    expect((await postJson(pipeline.api, `/v1/runs/${childId}/approvals`, { gate: 'preregistration', decision: 'approve', note: 'criteria fixed before it runs' })).status).toBe(202);
    expect(await untilStatus(childId, 'done')).toMatchObject({ verdict: 'KILL' });
    const decided = (await getJson<Record<string, unknown>>(pipeline.api, `/v1/experiments/${experimentId}`)).body;
    expect(decided).toMatchObject({ status: 'decided', decision: 'KILL', commit: head, result: { commit: head, metrics: { sharpe_oos: -0.1608 } } });
    expect(typeof decided.prereg_hash).toBe('string');

    // The decision answered the build's question, and the build went on: REVISE with it, then REJECT.
    const build = await untilStatus(buildId, 'done').catch(async (e) => {
      const dump = await pipeline.sql(`SELECT sequence, type, payload FROM run_events WHERE run_id = $1 ORDER BY sequence`, [buildId]);
      const outbox = await pipeline.sql(`SELECT * FROM outbox WHERE run_id = $1`, [buildId]);
      const applied = await pipeline.sql(`SELECT * FROM applied_events WHERE run_id = $1`, [buildId]);
      throw new Error(`${(e as Error).message}\n${JSON.stringify({ status: await statusOf(buildId), dump: dump.slice(-6), outbox, applied }, null, 1)}\n${pipeline.logs().slice(-4000)}`);
    });
    expect(build).toMatchObject({ verdict: 'REJECT' });
    const [question] = await pipeline.sql<{ status: string; answered_by: string; answer: string }>(`SELECT status, answered_by, answer FROM open_questions WHERE run_id = $1 ORDER BY id`, [buildId]);
    expect(question).toMatchObject({ status: 'answered', answered_by: `experiment ${experimentId}` });
    expect(question.answer).toMatch(/decided KILL by code from its preregistered criteria/);
    const calls = await pipeline.sql<{ role: string; label: string }>(`SELECT role, label FROM agent_calls WHERE run_id = $1 ORDER BY seq`, [buildId]);
    // S1 is the fact-only report written when the build stopped to wait; S2 the synthesis at its end.
    expect(calls.map((c) => `${c.role}:${c.label}`)).toEqual(['proposer:P1', 'critic:C1', 'reviser:P2', 'critic:C2', 'synthesizer:S2']);
    const report = await fetch(`${pipeline.api}/v1/runs/${buildId}/report`).then((r) => r.text());
    expect(report).toContain(`experiment ${experimentId}`);
    const childCalls = await pipeline.sql<{ role: string; label: string; provider: string }>(`SELECT role, label, provider FROM agent_calls WHERE run_id = $1 ORDER BY seq`, [childId]);
    expect(childCalls).toEqual([
      { role: 'proposer', label: 'PR1', provider: 'replay_x' },
      { role: 'interpreter', label: 'IN1', provider: 'replay_a' },
      { role: 'critic', label: 'CR1', provider: 'replay_b' },
    ]);
    // Both records verify: the build's, and the drafted experiment's, whose first event the build's step wrote (issue 26).
    for (const id of [buildId, childId]) expect([id, (await getJson(pipeline.api, `/v1/runs/${id}/verify`)).body]).toEqual([id, expect.objectContaining({ intact: true, unchained: 0 })]);
  });
});
