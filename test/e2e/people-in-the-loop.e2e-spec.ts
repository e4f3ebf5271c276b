import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FIXTURES, git, makeCalcRepo, mergePolicy } from './support/calc-repos';
import { getJson, Pipeline, postJson, projectConfigFrom, startPipeline, submitRun, waitFor, waitForTerminal } from '@roundtable/testing';

jest.setTimeout(420_000);

/**
 * People in the loop (issue 21), with every service its own process, the Docker sandbox and real
 * git repositories: the criteria gate with an edited criterion, the merge gate approved (the merge
 * commit on main, nothing else touched), refused (the original byte for byte as it was), a
 * conflicting commit made meanwhile (refused, with the reason), a repository outside the policy's
 * merge_roots (refused at submission), services crashed while a run waits, and a needs_input run
 * answered through the api.
 */


/** Every file of the working tree (not .git) and its hash: what "byte for byte" compares. */
function treeHashes(dir: string, at = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(path.join(dir, at))) {
    if (at === '' && name === '.git') continue;
    const rel = path.join(at, name);
    if (statSync(path.join(dir, rel)).isDirectory()) Object.assign(out, treeHashes(dir, rel));
    else out[rel] = createHash('sha256').update(readFileSync(path.join(dir, rel))).digest('hex');
  }
  return out;
}

function snapshot(repo: string) {
  return {
    main: git(repo, 'rev-parse', 'main').trim(),
    branch: git(repo, 'symbolic-ref', '--short', 'HEAD').trim(),
    status: git(repo, 'status', '--porcelain', '--untracked-files=all'),
    files: treeHashes(repo),
    index: createHash('sha256').update(readFileSync(path.join(repo, '.git/index'))).digest('hex'),
  };
}

describe('people in the loop: gates, merge and answers (separate processes, Docker sandbox, git)', () => {
  let pipeline: Pipeline;
  let tmp: string;
  let mergeable: string;

  /** A fresh git copy of the calc fixture under `dir`, with an untracked note that must survive a merge. */
  function makeRepo(dir: string, name: string): string {
    const repo = makeCalcRepo(dir, name);
    writeFileSync(path.join(repo, 'NOTES.txt'), 'untracked, and must survive the merge\n');
    return repo;
  }

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(tmpdir(), 'rt-e2e-people-'));
    let policyFile: string;
    ({ mergeable, policyFile } = mergePolicy(tmp));
    pipeline = await startPipeline({ env: { ROUNDTABLE_POLICY: policyFile } });
  });

  afterAll(async () => {
    await pipeline?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  async function submit(repo: string, file = 'gates-project.yaml'): Promise<string> {
    const res = await submitRun(pipeline.api, projectConfigFrom(path.join(FIXTURES, file), { repo }));
    expect(res.status).toBe(202);
    return res.body.id as string;
  }

  const atGate = (id: string, gate: string) =>
    waitFor(
      `run ${id} to wait at the ${gate} gate`,
      async () => {
        const { body } = await getJson(pipeline.api, `/v1/runs/${id}`);
        if (['done', 'halted', 'failed', 'needs_input', 'cancelled'].includes(body.status as string)) throw new Error(`run ${id} ended ${body.status}: ${body.halt_reason}\n${pipeline.logs()}`);
        return body.status === 'awaiting_approval' && (body.gate as { name: string } | null)?.name === gate ? body : undefined;
      },
      150_000,
      200,
    );

  /** The criteria gate, approved with AC1 reworded and AC4 added (what the cassette's engineer and validator guard). */
  async function approveCriteria(id: string): Promise<void> {
    const waiting = await atGate(id, 'criteria');
    const locked = (waiting.gate as { subject: { criteria: { id: string; text: string }[] } }).subject.criteria;
    expect(locked.map((c) => c.id)).toEqual(['AC1', 'AC2', 'AC3']);
    const criteria = [{ id: 'AC1', text: 'mul(2, 3) == 6, an int for two ints' }, ...locked.slice(1), { text: 'mul(0.5, 4) == 2.0' }];
    const res = await postJson(pipeline.api, `/v1/runs/${id}/approvals`, { gate: 'criteria', decision: 'approve', note: 'tighter AC1, one more', edits: { criteria } });
    expect(res.status).toBe(202);
  }

  it('criteria gate with an edit, then the merge gate approved: main has the merge commit and nothing else changed', async () => {
    const repo = makeRepo(mergeable, 'approve');
    const before = snapshot(repo);
    const id = await submit(repo);
    await approveCriteria(id);
    const atMerge = await atGate(id, 'merge');
    expect(atMerge.solved).toEqual([
      expect.objectContaining({ check: 'criteria_satisfied', ok: true }),
      expect.objectContaining({ check: 'tests_passed', ok: true }),
      expect.objectContaining({ check: 'no_open_blocker', ok: true }),
      expect.objectContaining({ check: 'synthesizer_accept', ok: true }),
    ]);
    // Waiting at the gate: the original is still as it was.
    expect(snapshot(repo)).toEqual(before);

    expect((await postJson(pipeline.api, `/v1/runs/${id}/approvals`, { gate: 'merge', decision: 'approve' })).status).toBe(202);
    const run = await waitForTerminal(pipeline, id, 120_000);
    expect(run).toMatchObject({ status: 'done', verdict: 'ACCEPT', gate: null });

    // The engineer's prompt held the approved criteria (the cassette's guards), and the criteria on the run are them.
    const [engineer] = await pipeline.sql<{ messages: { content: string }[] }>(`SELECT messages FROM agent_calls WHERE run_id = $1 AND role = 'engineer'`, [id]);
    expect(engineer.messages.map((m) => m.content).join('\n')).toContain('AC4: mul(0.5, 4) == 2.0');
    expect((run.criteria as { id: string; text: string }[]).map((c) => c.id)).toEqual(['AC1', 'AC2', 'AC3', 'AC4']);

    // main moved to a merge commit of the old main and the run branch; the working tree has the run's files and the untracked note.
    const after = snapshot(repo);
    const parents = git(repo, 'rev-list', '--parents', '-n', '1', 'main').trim().split(' ');
    expect(parents.slice(1)).toEqual([before.main, git(repo, 'rev-parse', `roundtable/${id}`).trim()]);
    expect(git(repo, 'log', '-1', '--format=%B', 'main')).toMatch(/Approved-by: anonymous/);
    expect(after.status).toBe('?? NOTES.txt\n');
    expect(Object.keys(after.files).sort()).toEqual(['NOTES.txt', 'calc.py', 'test_calc.py', 'test_mul.py']);
    expect(after.files['test_calc.py']).toBe(before.files['test_calc.py']);
    expect(after.files['NOTES.txt']).toBe(before.files['NOTES.txt']);
    expect(readFileSync(path.join(repo, 'calc.py'), 'utf8')).toContain('return a * b');

    const events = await pipeline.sql<{ type: string; payload: Record<string, unknown> }>(
      `SELECT type, payload FROM run_events WHERE run_id = $1 AND type IN ('approval_requested', 'approval_given', 'merge_completed') ORDER BY sequence`,
      [id],
    );
    expect(events.map((e) => `${e.type}:${e.payload.gate ?? ''}`)).toEqual(['approval_requested:criteria', 'approval_given:criteria', 'approval_requested:merge', 'approval_given:merge', 'merge_completed:']);
    expect(events[1].payload.edits).toEqual({
      added: [{ id: 'AC4', text: 'mul(0.5, 4) == 2.0' }],
      dropped: [],
      reworded: [{ id: 'AC1', from: 'mul(2, 3) == 6', to: 'mul(2, 3) == 6, an int for two ints' }],
    });
    expect(events[4].payload).toMatchObject({ into: 'main', strategy: 'merge', previous: before.main, commit: after.main });
    const decisions = await pipeline.sql<{ reason: string }>(`SELECT reason FROM decisions WHERE run_id = $1 ORDER BY id`, [id]);
    expect(decisions.map((d) => d.reason)).toEqual(expect.arrayContaining(['criteria gate approved by anonymous: tighter AC1, one more', 'merge gate approved by anonymous']));
    const report = await fetch(`${pipeline.api}/v1/runs/${id}/report`).then((r) => r.text());
    expect(report).toContain('mul(0.5, 4) == 2.0');
  });

  it('the merge refused by a person leaves the original byte for byte as it was', async () => {
    const repo = makeRepo(mergeable, 'reject');
    const id = await submit(repo);
    await approveCriteria(id);
    await atGate(id, 'merge');
    const before = snapshot(repo);
    expect((await postJson(pipeline.api, `/v1/runs/${id}/approvals`, { gate: 'merge', decision: 'reject', note: 'not this week' })).status).toBe(202);
    const run = await waitForTerminal(pipeline, id, 60_000);
    expect(run).toMatchObject({ status: 'done' });
    expect(snapshot(repo)).toEqual(before);
    const [refused] = await pipeline.sql<{ payload: Record<string, unknown> }>(`SELECT payload FROM run_events WHERE run_id = $1 AND type = 'approval_refused'`, [id]);
    expect(refused.payload).toEqual({ gate: 'merge', approver: 'anonymous', note: 'not this week' });
  });

  it('a conflicting commit made to the original during the run is refused with the reason, the original untouched', async () => {
    const repo = makeRepo(mergeable, 'conflict');
    const id = await submit(repo);
    await approveCriteria(id);
    await atGate(id, 'merge');
    writeFileSync(path.join(repo, 'calc.py'), '"""Someone else\'s calculator."""\n\n\ndef mul(a, b):\n    return b * a  # theirs\n');
    git(repo, 'commit', '-q', '-am', 'a conflicting change on main');
    const before = snapshot(repo);
    expect((await postJson(pipeline.api, `/v1/runs/${id}/approvals`, { gate: 'merge', decision: 'approve' })).status).toBe(202);
    const run = await waitForTerminal(pipeline, id, 60_000);
    expect(run.status).toBe('done');
    const [refused] = await pipeline.sql<{ payload: { reason: string; code: string } }>(`SELECT payload FROM run_events WHERE run_id = $1 AND type = 'merge_refused'`, [id]);
    expect(refused.payload.code).toBe('conflict');
    expect(refused.payload.reason).toContain('calc.py');
    expect(snapshot(repo)).toEqual(before);
  });

  it('a repository outside repos.merge_roots is refused at submission, naming the policy field', async () => {
    const repo = makeRepo(path.join(tmp, 'readonly'), 'outside');
    const res = await submitRun(pipeline.api, projectConfigFrom(path.join(FIXTURES, 'gates-project.yaml'), { repo }));
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('repos.merge_roots');
  });

  it('a run waiting at a gate survives its services crashing: it still waits, then is approved and ends done', async () => {
    const repo = makeRepo(mergeable, 'crash');
    const id = await submit(repo);
    await atGate(id, 'criteria');
    for (const name of ['orchestrator', 'test-runner', 'provider-worker', 'api'] as const) await pipeline.crashAndRestart(name);
    // Restarted (the reconciler sweeps at start): the run holds no worker, and nothing moved it.
    await new Promise((r) => setTimeout(r, 3000));
    const still = await getJson(pipeline.api, `/v1/runs/${id}`);
    expect(still.body).toMatchObject({ status: 'awaiting_approval', gate: { name: 'criteria' } });
    await approveCriteria(id);
    await atGate(id, 'merge');
    expect((await postJson(pipeline.api, `/v1/runs/${id}/approvals`, { gate: 'merge', decision: 'approve' })).status).toBe(202);
    expect(await waitForTerminal(pipeline, id, 120_000)).toMatchObject({ status: 'done', verdict: 'ACCEPT' });
  });

  it('autonomy 3 merges a solved run by itself, with no gate', async () => {
    const repo = makeRepo(mergeable, 'autonomy3');
    const before = snapshot(repo);
    const res = await submitRun(pipeline.api, projectConfigFrom(path.join(FIXTURES, 'calc-project.yaml'), { repo, autonomy: 3, merge: { into: 'main', strategy: 'squash' } }));
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    const run = await waitForTerminal(pipeline, id, 150_000);
    expect(run).toMatchObject({ status: 'done', verdict: 'ACCEPT' });
    expect((run.solved as { ok: boolean }[]).every((c) => c.ok)).toBe(true);
    // A squash: one new commit on main, its parent the old main, holding the run's files.
    expect(git(repo, 'rev-list', '--parents', '-n', '1', 'main').trim().split(' ').slice(1)).toEqual([before.main]);
    expect(git(repo, 'log', '-1', '--format=%B', 'main')).toMatch(/Approved-by: autonomy 3/);
    expect(readFileSync(path.join(repo, 'calc.py'), 'utf8')).toContain('return a * b');
    const gates = await pipeline.sql(`SELECT 1 FROM run_events WHERE run_id = $1 AND type = 'approval_requested'`, [id]);
    expect(gates).toEqual([]);
  });

  it('a run stopped as needs_input is answered through the api and ends done; nothing recorded is asked again', async () => {
    const repo = makeRepo(path.join(tmp, 'readonly'), 'answer');
    const id = await submit(repo, 'answer-project.yaml');
    const stopped = await waitForTerminal(pipeline, id, 120_000);
    expect(stopped.status).toBe('needs_input');
    expect(stopped.open_questions).toEqual([expect.objectContaining({ id: 'Q1', status: 'open', role: 'critic' })]);
    const before = await pipeline.sql<{ label: string }>(`SELECT label FROM agent_calls WHERE run_id = $1 ORDER BY seq`, [id]);
    expect(before.map((c) => c.label)).toEqual(['P1', 'C1', 'P2', 'C2']);

    expect((await postJson(pipeline.api, `/v1/runs/${id}/answers`, { question_id: 'Q1', answer: 'an int for two ints' })).status).toBe(202);
    const run = await waitFor(
      `run ${id} to end done after the answer`,
      async () => {
        const { body } = await getJson(pipeline.api, `/v1/runs/${id}`);
        return body.status === 'done' ? body : undefined;
      },
      150_000,
      200,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${pipeline.logs()}`);
    });
    expect(run).toMatchObject({ verdict: 'ACCEPT' });
    expect(run.open_questions).toEqual([expect.objectContaining({ id: 'Q1', status: 'answered', answer: 'an int for two ints', answered_by: 'anonymous' })]);
    const calls = await pipeline.sql<{ label: string; messages: { content: string }[] }>(`SELECT label, messages FROM agent_calls WHERE run_id = $1 ORDER BY seq`, [id]);
    expect(calls.map((c) => c.label)).toEqual(['P1', 'C1', 'P2', 'C2', 'P3', 'C3', 'I1', 'R1', 'S2']);
    expect(calls[4].messages.map((m) => m.content).join('\n')).toMatch(/<evidence id="Q1" type="answer_from_a_person" trust="untrusted">[\s\S]*Answer \(from anonymous, a person\): an int for two ints/);
  });
});
