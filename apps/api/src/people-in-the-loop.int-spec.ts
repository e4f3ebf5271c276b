import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobId, readOperatorPolicy } from '@roundtable/contracts';
import { OpenQuestionEntity, OutboxEntity, RunEntity } from '@roundtable/persistence';
import { ApiHarness, demoConfig, startApi } from './api-test-harness';

jest.setTimeout(30_000);

/** Issue 21 at the api: who may approve (the approve role, four eyes), at which gate, and answers to open questions. */

const TOKENS = {
  writer: 'w'.repeat(24),
  lead: 'l'.repeat(24),
  second: 's'.repeat(24),
};

let api: ApiHarness;

beforeAll(async () => {
  const { policy } = readOperatorPolicy();
  api = await startApi(
    {
      API_TOKENS: [
        { name: 'writer', token: TOKENS.writer, role: 'write' },
        { name: 'lead', token: TOKENS.lead, role: 'approve' },
        { name: 'second', token: TOKENS.second, role: 'approve' },
      ],
    },
    { policy: { ...policy, approvals: { four_eyes: true, autonomous_merge: false } } },
  );
});
afterAll(async () => {
  await api?.close();
});

type Reply = Record<string, unknown> & { error?: string; message?: string };

async function call(method: 'GET' | 'POST', path: string, token: string, body?: unknown): Promise<{ status: number; json: Reply }> {
  const res = await fetch(`${api.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Reply };
}

/** A run submitted by `lead`, then put at a gate as a step would leave it. */
async function runAtGate(gate: string | null, submitter = TOKENS.lead): Promise<string> {
  const res = await call('POST', '/v1/runs', submitter, demoConfig());
  expect(res.status).toBe(202);
  const id = res.json.id as string;
  await api.ds.getRepository(RunEntity).update(
    { id },
    gate
      ? { status: 'awaiting_approval', gate: { name: gate, subject: { criteria: [{ id: 'AC1', text: 'empty -> 0.0' }] } }, gateOpenedAt: new Date() }
      : { status: 'running' },
  );
  return id;
}

const approvalJobs = (runId: string) => api.ds.getRepository(OutboxEntity).find({ where: { runId, jobName: 'run.approve' }, order: { id: 'ASC' } });

describe('POST /v1/runs/:id/approvals', () => {
  it('records who submitted the run', async () => {
    const id = await runAtGate(null);
    expect((await api.ds.getRepository(RunEntity).findOneByOrFail({ id })).submittedBy).toBe('lead');
  });

  it('refuses a write token with 403 naming the role it needs, and writes no job', async () => {
    const id = await runAtGate('criteria');
    const res = await call('POST', `/v1/runs/${id}/approvals`, TOKENS.writer, { gate: 'criteria', decision: 'approve' });
    expect(res.status).toBe(403);
    expect(res.json.message).toBe('token writer has the write role; approving or refusing at a gate needs a token with the approve role, or admin (API_TOKENS name:token:approve:team)');
    expect(await approvalJobs(id)).toEqual([]);
  });

  it('with four eyes, refuses the submitter and takes another approver, with the edited criteria in the job', async () => {
    const id = await runAtGate('criteria');
    const own = await call('POST', `/v1/runs/${id}/approvals`, TOKENS.lead, { gate: 'criteria', decision: 'approve' });
    expect(own.status).toBe(403);
    expect(own.json).toMatchObject({ error: 'four_eyes' });
    expect(own.json.message).toMatch(/token lead submitted run .* four eyes \(approvals\.four_eyes\): another approver must decide/);

    const edits = { criteria: [{ id: 'AC1', text: 'an empty series returns 0.0' }, { text: 'a single value returns 0.0' }] };
    const other = await call('POST', `/v1/runs/${id}/approvals`, TOKENS.second, { gate: 'criteria', decision: 'approve', note: 'tightened AC1', edits });
    expect(other.status).toBe(202);
    expect(other.json).toMatchObject({ requested: 'approve', status: 'awaiting_approval', job_id: jobId(id, 'approve', 1) });
    const [job] = await approvalJobs(id);
    expect(job.payload).toEqual({ runId: id, gate: 'criteria', decision: 'approve', note: 'tightened AC1', approver: 'second', criteria: edits.criteria });
  });

  it('409 naming the gate the run waits at when another is named, and 409 for a run at no gate', async () => {
    const id = await runAtGate('criteria');
    const wrong = await call('POST', `/v1/runs/${id}/approvals`, TOKENS.second, { gate: 'merge', decision: 'approve' });
    expect(wrong.status).toBe(409);
    expect(wrong.json.message).toBe(`run ${id} waits at the criteria gate, not at merge; send gate: "criteria"`);
    const running = await runAtGate(null);
    const none = await call('POST', `/v1/runs/${running}/approvals`, TOKENS.second, { gate: 'criteria', decision: 'approve' });
    expect(none.status).toBe(409);
    expect(none.json.error).toBe('not_awaiting_approval');
  });

  it('refuses edits at the merge gate, an unknown field, and a missing decision, each naming the field', async () => {
    const id = await runAtGate('merge');
    const edits = await call('POST', `/v1/runs/${id}/approvals`, TOKENS.second, { gate: 'merge', decision: 'approve', edits: { criteria: [{ text: 'x' }] } });
    expect(edits.status).toBe(400);
    expect(edits.json.message).toMatch(/^edits change the criteria, at the criteria gate only/);
    const typo = await call('POST', `/v1/runs/${id}/approvals`, TOKENS.second, { gate: 'merge', desicion: 'approve' });
    expect(typo.status).toBe(400);
    expect(typo.json.message).toMatch(/decision is "approve" or "reject"/);
    expect(typo.json.message).toMatch(/desicion is not a field of an approval/);
    expect(await approvalJobs(id)).toEqual([]);
  });

  it('GET /v1/runs/:id shows the gate and what to look at', async () => {
    const id = await runAtGate('criteria');
    const res = await call('GET', `/v1/runs/${id}`, TOKENS.writer);
    expect(res.json.gate).toMatchObject({ name: 'criteria', subject: { criteria: [{ id: 'AC1', text: 'empty -> 0.0' }] } });
    expect(typeof (res.json.gate as { waiting_since: string }).waiting_since).toBe('string');
    expect(res.json.solved).toHaveLength(4);
  });
});

describe('POST /v1/runs/:id/answers', () => {
  async function needsInput(): Promise<string> {
    const id = await runAtGate(null);
    await api.ds.getRepository(RunEntity).update({ id }, { status: 'needs_input' });
    await api.ds.getRepository(OpenQuestionEntity).insert({ runId: id, raisedByRole: 'critic', question: 'is negative equity an error?', status: 'open' });
    return id;
  }

  it('takes an answer from a write token, as a run.answer job naming who answered; GET lists the question by id', async () => {
    const id = await needsInput();
    const shown = await call('GET', `/v1/runs/${id}`, TOKENS.writer);
    expect(shown.json.open_questions).toEqual([{ id: 'Q1', role: 'critic', question: 'is negative equity an error?', status: 'open', answer: null, answered_by: null }]);
    const res = await call('POST', `/v1/runs/${id}/answers`, TOKENS.writer, { question_id: 'Q1', answer: 'yes, raise ValueError' });
    expect(res.status).toBe(202);
    const [job] = await api.ds.getRepository(OutboxEntity).find({ where: { runId: id, jobName: 'run.answer' } });
    expect(job.payload).toEqual({ runId: id, questionId: 'Q1', answer: 'yes, raise ValueError', answeredBy: 'writer' });
  });

  it('404 for a question the run does not have, 409 for one answered already, 400 for a malformed id', async () => {
    const id = await needsInput();
    expect((await call('POST', `/v1/runs/${id}/answers`, TOKENS.writer, { question_id: 'Q2', answer: 'x' })).status).toBe(404);
    const bad = await call('POST', `/v1/runs/${id}/answers`, TOKENS.writer, { question_id: 'first', answer: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(/question_id names the open question, e.g. "Q1"/);
    await api.ds.getRepository(OpenQuestionEntity).update({ runId: id }, { status: 'answered', answer: 'no', answeredBy: 'lead' });
    const again = await call('POST', `/v1/runs/${id}/answers`, TOKENS.writer, { question_id: 'Q1', answer: 'x' });
    expect(again.status).toBe(409);
    expect(again.json.error).toBe('question_answered');
  });
});

describe('autonomy 3 is the operator\'s to allow', () => {
  let repo: string;
  beforeAll(() => {
    repo = mkdtempSync(join(tmpdir(), 'rt-int-autonomy-'));
    writeFileSync(join(repo, 'calc.py'), 'x = 1\n');
    execFileSync('git', ['init', '-q', '--initial-branch=main'], { cwd: repo });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'start'], { cwd: repo });
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  it('a write token asking for autonomy 3 (a merge with no person) is refused with 400 naming the policy field, and no run is made', async () => {
    const before = await api.ds.getRepository(RunEntity).count();
    const res = await call('POST', '/v1/runs', TOKENS.writer, { ...demoConfig(), repo, autonomy: 3, merge: { into: 'main', strategy: 'squash' } });
    expect(res.status).toBe(400);
    expect(res.json.issues).toEqual([{ path: 'autonomy', message: expect.stringContaining('approvals.autonomous_merge is false') }]);
    expect(await api.ds.getRepository(RunEntity).count()).toBe(before);
    // The same project at autonomy 2 with the merge gate is taken: a person decides the merge.
    const gated = await call('POST', '/v1/runs', TOKENS.writer, { ...demoConfig(), repo, autonomy: 2, approvals: ['merge'], merge: { into: 'main', strategy: 'squash' } });
    expect(gated.status).toBe(202);
  });
});
