import type { JudgeRole, Verdict } from '@roundtable/contracts';
import { BiasAudit, JUDGES } from '@roundtable/contracts';
import { ApiHarness, startApi } from '../api-test-harness';

jest.setTimeout(30_000);

/**
 * GET /v1/audit/bias over recorded runs: the rows are written here directly, with the columns
 * the orchestrator writes (build-rows.sql.ts for critiques, proposals, implementations and test
 * runs; agent_calls with role, provider, model and seq; a panel's verdicts and re-votes in its
 * runs.workflow_state snapshot, each naming its call). Project `planted` holds an always-ACCEPT
 * critic whose ACCEPTs are often followed by failing tests; project `balanced` holds critics with
 * a mix of verdicts and panels whose judges score and move each their own way.
 */

const TOKENS = { read: 'audit-read-0123456789abcdef' };

let api: ApiHarness;
let seq = 0;

async function get(path: string, token: string | null = TOKENS.read) {
  const res = await fetch(`${api.base}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, body: (await res.json()) as BiasAudit & { error?: string; message?: string } };
}

const q = (text: string, params: unknown[]) => api.ds.query(text, params);

async function project(name: string): Promise<string> {
  const id = `proj_${name}`;
  await q(`INSERT INTO projects (id, name, objective, requirements, config) VALUES ($1, $2, 'an objective', '[]', '{}')`, [id, name]);
  return id;
}

async function run(projectId: string, runId: string, workflow: string, extra: { workflowState?: unknown; ideaId?: string; ideaVersion?: number } = {}): Promise<void> {
  seq += 1;
  await q(
    `INSERT INTO runs (id, project_id, workflow, status, stage, config, workflow_state, idea_id, idea_version, created_at)
     VALUES ($1, $2, $3, 'done', 'DONE', '{}', $4::jsonb, $5, $6, now() - make_interval(secs => $7))`,
    [runId, projectId, workflow, extra.workflowState === undefined ? null : JSON.stringify(extra.workflowState), extra.ideaId ?? null, extra.ideaVersion ?? null, 10_000 - seq],
  );
}

/** An agent_calls row as the orchestrator queues it and the provider-worker completes it. */
async function call(runId: string, n: number, role: string, provider: string, model: string, stage: string): Promise<string> {
  const id = `${runId}-c${n}`;
  await q(
    `INSERT INTO agent_calls (id, run_id, seq, stage, role, provider, model, label, status, prompt_hash, messages, valid)
     VALUES ($1, $2, $3, $4, $5, $6, $7, null, 'completed', 'h', '[]', true)`,
    [id, runId, n, stage, role, provider, model],
  );
  return id;
}

const problem = { severity: 'major', description: 'no empty case', location: 'dd.py:2' };

/**
 * A build run: P1 by the proposer; the critic's verdicts in turn (each non-ACCEPT followed by the
 * reviser's next proposal); then I1 by the engineer, its test run T1 (exit 0 or 1) and the
 * validator's review R1.
 */
async function buildRun(
  projectId: string,
  runId: string,
  critic: { provider: string; model: string },
  verdicts: Verdict[],
  after: { testsPass: boolean; review: Verdict },
): Promise<void> {
  await run(projectId, runId, 'build');
  let n = 0;
  let proposal = 1;
  const addProposal = async (role: string) => {
    const callId = await call(runId, ++n, role, 'openai', 'gpt-5', 'PROPOSE');
    await q(`INSERT INTO proposals (id, run_id, call_id, label, revision_of, round, status, body) VALUES ($1, $2, $3, $4, null, $5, 'open', '{}')`, [
      `${runId}-P${proposal}`,
      runId,
      callId,
      `P${proposal}`,
      proposal - 1,
    ]);
  };
  await addProposal('proposer');
  for (const [i, verdict] of verdicts.entries()) {
    const callId = await call(runId, ++n, 'critic', critic.provider, critic.model, 'CRITIQUE');
    const body = { proposal_id: `P${proposal}`, verdict, problems: verdict === 'ACCEPT' ? [] : [problem], counterarguments: ['checked the empty case'], tests_required: [], confidence: 0.7 };
    await q(`INSERT INTO critiques (id, run_id, call_id, label, target_kind, target_id, verdict, body) VALUES ($1, $2, $3, $4, 'proposal', $5, $6, $7)`, [
      `${runId}-C${i + 1}`,
      runId,
      callId,
      `C${i + 1}`,
      `${runId}-P${proposal}`,
      verdict,
      JSON.stringify(body),
    ]);
    if (verdict !== 'ACCEPT') {
      proposal += 1;
      await addProposal('reviser');
    }
  }
  const engineer = await call(runId, ++n, 'engineer', 'openai', 'gpt-5', 'IMPLEMENT');
  await q(`INSERT INTO implementations (id, run_id, call_id, label, proposal_id, fix_round, body, status) VALUES ($1, $2, $3, 'I1', $4, 0, '{}', 'applied')`, [
    `${runId}-I1`,
    runId,
    engineer,
    `${runId}-P${proposal}`,
  ]);
  await q(
    `INSERT INTO test_runs (id, run_id, implementation_id, label, command, exit_code, passed, failed, errors, timed_out, runner) VALUES ($1, $2, $3, 'T1', 'pytest -q', $4, $5, $6, 0, false, 'docker')`,
    [`${runId}-T1`, runId, `${runId}-I1`, after.testsPass ? 0 : 1, after.testsPass ? 3 : 1, after.testsPass ? 0 : 2],
  );
  const validator = await call(runId, ++n, 'validator', 'gemini', 'gemini-2.5-pro', 'REVIEW');
  await q(`INSERT INTO critiques (id, run_id, call_id, label, target_kind, target_id, verdict, body) VALUES ($1, $2, $3, 'R1', 'implementation', $4, $5, '{}')`, [
    `${runId}-R1`,
    runId,
    validator,
    `${runId}-I1`,
    after.review,
  ]);
}

/** A panel run: each judge's roast verdict (V1 … V5) and its re-vote (RV1 …) by `moves`, in the snapshot, each on its own call. */
async function panelRun(projectId: string, runId: string, scores: number[], moves: number[], idea: { ideaId?: string; ideaVersion?: number } = {}): Promise<void> {
  const verdicts: unknown[] = [];
  const revotes: unknown[] = [];
  const calls: [number, string, string, string, string][] = [];
  JUDGES.forEach((judge: JudgeRole, i) => {
    const [provider, model] = i % 2 ? ['anthropic', 'claude-sonnet-4-5'] : ['xai', 'grok-4'];
    calls.push([i + 1, judge, provider, model, 'ROAST'], [i + 6, judge, provider, model, 'REVOTE']);
    const body = { judge, score: scores[i], stance: 'mixed', top_concerns: ['x'], evidence: ['y'], what_would_change_my_mind: 'z', confidence: 0.6 };
    verdicts.push({ id: `${runId}-V${i + 1}`, label: `V${i + 1}`, callId: `${runId}-c${i + 1}`, judge, attempt: 0, body });
    const score = scores[i] + moves[i];
    revotes.push({
      id: `${runId}-RV${i + 1}`,
      label: `RV${i + 1}`,
      callId: `${runId}-c${i + 6}`,
      judge,
      phase: 'revote',
      previous: scores[i],
      requested: score,
      score,
      capped: false,
      body: { judge, score, changed: moves[i] !== 0, change_reason: moves[i] ? 'the debate' : null, confidence: 0.6 },
    });
  });
  await run(projectId, runId, 'panel', { workflowState: { verdicts, revotes, event_seq: 0 }, ...idea });
  for (const [n, role, provider, model, stage] of calls) await call(runId, n, role, provider, model, stage);
}

beforeAll(async () => {
  api = await startApi({ API_TOKENS: [{ name: 'reader', token: TOKENS.read, role: 'read' }] as never });
  const planted = await project('planted');
  const yes = { provider: 'ollama', model: 'yes-man' };
  // Six ACCEPTs in six runs; four followed by failing tests, two of those by a REVISE review.
  await buildRun(planted, 'run_p1', yes, ['ACCEPT'], { testsPass: false, review: 'REVISE' });
  await buildRun(planted, 'run_p2', yes, ['ACCEPT'], { testsPass: false, review: 'REVISE' });
  await buildRun(planted, 'run_p3', yes, ['ACCEPT'], { testsPass: false, review: 'ACCEPT' });
  await buildRun(planted, 'run_p4', yes, ['ACCEPT'], { testsPass: false, review: 'ACCEPT' });
  await buildRun(planted, 'run_p5', yes, ['ACCEPT'], { testsPass: true, review: 'ACCEPT' });
  await buildRun(planted, 'run_p6', yes, ['ACCEPT'], { testsPass: true, review: 'ACCEPT' });

  const balanced = await project('balanced');
  const a = { provider: 'anthropic', model: 'claude-sonnet-4-5' };
  const b = { provider: 'xai', model: 'grok-4' };
  await buildRun(balanced, 'run_b1', a, ['REVISE', 'ACCEPT'], { testsPass: true, review: 'ACCEPT' });
  await buildRun(balanced, 'run_b2', a, ['REJECT', 'REVISE', 'ACCEPT'], { testsPass: false, review: 'REVISE' });
  await buildRun(balanced, 'run_b3', a, ['ACCEPT'], { testsPass: true, review: 'ACCEPT' });
  await buildRun(balanced, 'run_b4', b, ['REVISE', 'ACCEPT'], { testsPass: true, review: 'ACCEPT' });
  await buildRun(balanced, 'run_b5', b, ['ACCEPT'], { testsPass: true, review: 'ACCEPT' });
  await buildRun(balanced, 'run_b6', b, ['REVISE', 'REVISE', 'ACCEPT'], { testsPass: true, review: 'ACCEPT' });
  await panelRun(balanced, 'run_q1', [3, 6, 8, 5, 2], [1, 0, -1, 2, 0], { ideaId: 'idea_1', ideaVersion: 1 });
  await panelRun(balanced, 'run_q2', [7, 4, 6, 9, 3], [-2, 1, 0, 0, 1], { ideaId: 'idea_1', ideaVersion: 2 });
  await panelRun(balanced, 'run_q3', [5, 5, 2, 6, 8], [0, -1, 2, 1, 0]);
});

afterAll(async () => {
  await api?.close();
});

describe('GET /v1/audit/bias', () => {
  it('flags the planted always-ACCEPT critic: it never revises, and most of its ACCEPTs met failing tests', async () => {
    const { status, body } = await get('/v1/audit/bias?project=planted');
    expect(status).toBe(200);
    expect(body.flags).toEqual([
      { subject: 'ollama/yes-man', kind: 'never_revises', detail: '6 verdicts over 6 runs, 6 ACCEPT, not one REVISE or REJECT' },
      { subject: 'ollama/yes-man', kind: 'accepts_failures', detail: '4 of its 6 ACCEPTs (67 %) were followed by failing tests in the same run' },
    ]);
    expect(body.critics).toEqual([
      expect.objectContaining({
        subject: 'ollama/yes-man',
        accept: { count: 6, of: 6, rate: 1 },
        accepts_then_failing_tests: { count: 4, of: 6, rate: 0.667 },
        accepts_then_failing_review: { count: 2, of: 6, rate: 0.333 },
      }),
    ]);
    expect(body.judges).toEqual([]);
    expect(body.scope).toEqual({ project: 'planted', run_limit: 2000, runs: 6, truncated: false, build_runs: 6, panel_runs: 0 });
    // The proposals were openai's and the critic ollama's: all on the other side.
    expect(body.self_preference.find((s) => s.role === 'critic')).toMatchObject({ same_provider: { of: 0 }, other_provider: { count: 6, of: 6 } });
  });

  it('flags nothing on the balanced set, and reads its judges: scores, re-votes, drift across the idea\'s versions', async () => {
    const { status, body } = await get('/v1/audit/bias?project=balanced');
    expect(status).toBe(200);
    expect(body.flags).toEqual([]);
    expect(body.critics.map((c) => [c.subject, c.verdicts, c.accept.count, c.revise.count, c.reject.count])).toEqual([
      ['anthropic/claude-sonnet-4-5', 6, 3, 2, 1],
      ['xai/grok-4', 6, 3, 3, 0],
    ]);
    expect(body.scope).toMatchObject({ runs: 9, build_runs: 6, panel_runs: 3 });
    const vc = body.judges.find((j) => j.judge === 'vc')!;
    expect(vc).toMatchObject({ subject: 'xai/grok-4 (vc)', scores: { count: 3, mean: 5, min: 3, max: 7 }, herd_moves: { count: 0, of: 3 }, panels: 3 });
    // idea_1 version 1 (3 re-voted +1 = 4) then version 2 (7 − 2 = 5): one pair, a change of 1.
    expect(vc.drift).toEqual({ pairs: 1, mean_abs_change: 1 });
    expect(body.judges).toHaveLength(5);
  });

  it('reads every project without ?project=, and filters by the name given', async () => {
    const all = await get('/v1/audit/bias');
    expect(all.status).toBe(200);
    // The reply is what the contracts (and the OpenAPI document generated from them) say it is.
    expect(BiasAudit.safeParse(all.body).error?.issues).toBeUndefined();
    expect(all.body.scope).toMatchObject({ project: null, runs: 15 });
    expect(all.body.critics.map((c) => c.subject).sort()).toEqual(['anthropic/claude-sonnet-4-5', 'ollama/yes-man', 'xai/grok-4']);
    expect(all.body.flags.map((f) => [f.subject, f.kind])).toEqual([
      ['ollama/yes-man', 'never_revises'],
      ['ollama/yes-man', 'accepts_failures'],
    ]);
    const none = await get('/v1/audit/bias?project=nobody');
    expect(none.body).toMatchObject({ flags: [], critics: [], judges: [], self_preference: [], scope: { project: 'nobody', runs: 0 } });
  });

  it("leaves out a fork's copied verdicts: the critic's judgement is counted once, in the run that asked for it", async () => {
    const forked = await project('forked');
    const critic = { provider: 'ollama', model: 'copied' };
    await buildRun(forked, 'run_f1', critic, ['ACCEPT'], { testsPass: true, review: 'ACCEPT' });
    await buildRun(forked, 'run_f2', critic, ['ACCEPT'], { testsPass: false, review: 'REVISE' });
    // run_f2 is a fork of run_f1 from IMPLEMENT: its critique's call is a copy of run_f1's.
    await q(`UPDATE agent_calls SET copied_from = 'run_f1-c2' WHERE id = 'run_f2-c2'`, []);
    const { body } = await get('/v1/audit/bias?project=forked');
    expect(body.critics).toEqual([expect.objectContaining({ subject: 'ollama/copied', verdicts: 1, runs: 1, accepts_then_failing_tests: { count: 0, of: 1, rate: 0 } })]);
  });

  it('answers 400 naming the parameter for a bad query, and 401 without a token', async () => {
    const unknown = await get('/v1/audit/bias?projct=planted');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: 'invalid_query' });
    expect(unknown.body.message).toContain('takes only project');
    const twice = await get('/v1/audit/bias?project=a&project=b');
    expect(twice.status).toBe(400);
    expect(twice.body.message).toContain('project is a project name, given once');
    expect((await get('/v1/audit/bias?project=')).status).toBe(400);
    expect((await get('/v1/audit/bias', null)).status).toBe(401);
  });
});
