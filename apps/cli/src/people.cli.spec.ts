import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from './cli';
import { parseCriteriaEdit } from './criteria-edit';
import { captureIo, FakeApi, sendJson, startFakeApi } from './fake-api.fixture';

/** approve, reject and answer against a fake api: the bodies they post, the gate they find, their refusals. */
describe('roundtable approve, reject, answer', () => {
  let api: FakeApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  const gateApi = () =>
    startFakeApi((req, res) => {
      if (req.method === 'GET' && req.url === '/v1/runs/run_g') return sendJson(res, 200, { id: 'run_g', status: 'awaiting_approval', gate: { name: 'criteria', subject: {} } });
      if (req.method === 'GET' && req.url === '/v1/runs/run_r') return sendJson(res, 200, { id: 'run_r', status: 'running', gate: null });
      if (req.url === '/v1/runs/run_w/approvals') return sendJson(res, 403, { error: 'forbidden', message: 'token ci has the write role; approving or refusing at a gate needs a token with the approve role (API_TOKENS name:token:approve)' });
      return sendJson(res, 202, { id: 'run_g', requested: 'approve', status: 'awaiting_approval', job_id: 'j', links: {} });
    });

  it('approve finds the gate the run waits at and posts the edited criteria from --edit', async () => {
    api = await gateApi();
    const dir = mkdtempSync(path.join(tmpdir(), 'rt-cli-edit-'));
    writeFileSync(path.join(dir, 'criteria.txt'), '# approved criteria\nAC1: an empty series returns 0.0\n- a single value returns 0.0\n');
    const io = captureIo({ cwd: dir });
    expect(await runCli(['approve', 'run_g', '--note', 'tightened', '--edit', path.join(dir, 'criteria.txt'), '--api', api.url], io.io)).toBe(0);
    const post = api.requests.at(-1)!;
    expect([post.method, post.url]).toEqual(['POST', '/v1/runs/run_g/approvals']);
    expect(JSON.parse(post.body)).toEqual({
      gate: 'criteria',
      decision: 'approve',
      note: 'tightened',
      edits: { criteria: [{ id: 'AC1', text: 'an empty series returns 0.0' }, { text: 'a single value returns 0.0' }] },
    });
    expect(io.stdout()).toContain('run run_g approved at the criteria gate with 2 criteria as edited\n');
  });

  it('reject posts the decision at the gate named, and has no --edit', async () => {
    api = await gateApi();
    const io = captureIo();
    expect(await runCli(['reject', 'run_g', '--gate', 'merge', '--note', 'not now', '--api', api.url], io.io)).toBe(0);
    expect(JSON.parse(api.requests.at(-1)!.body)).toEqual({ gate: 'merge', decision: 'reject', note: 'not now' });
    const bad = captureIo();
    expect(await runCli(['reject', 'run_g', '--edit', 'x.txt', '--api', api.url], bad.io)).toBe(1);
    expect(bad.stderr()).toContain("unknown option '--edit'");
  });

  it('says when the run waits at no gate, and prints the api refusal of a write token', async () => {
    api = await gateApi();
    const none = captureIo();
    expect(await runCli(['approve', 'run_r', '--api', api.url], none.io)).toBe(1);
    expect(none.stderr()).toContain('run run_r is running and waits at no gate; there is nothing to approve');
    const refused = captureIo();
    expect(await runCli(['approve', 'run_w', '--gate', 'merge', '--api', api.url], refused.io)).toBe(1);
    expect(refused.stderr()).toContain('HTTP 403 forbidden: token ci has the write role');
  });

  it('answer posts the question id (upper-cased) and the text', async () => {
    api = await startFakeApi((_req, res) => sendJson(res, 202, { id: 'run_n', requested: 'answer' }));
    const io = captureIo();
    expect(await runCli(['answer', 'run_n', 'q1', 'two ints give an int', '--api', api.url], io.io)).toBe(0);
    const post = api.requests.at(-1)!;
    expect([post.url, JSON.parse(post.body)]).toEqual(['/v1/runs/run_n/answers', { question_id: 'Q1', answer: 'two ints give an int' }]);
  });
});

it('show names the gate, the open questions and the solved checks', async () => {
  const api = await startFakeApi((_req, res) =>
    sendJson(res, 200, {
      id: 'run_s', workflow: 'build', project: 'calc', status: 'awaiting_approval', stage: 'MERGE', round: 0, fix_round: 0, verdict: 'ACCEPT', confidence: 0.8, halt_reason: null,
      usage: { calls: 5, failed_calls: 0, input_tokens: 1, output_tokens: 1, tokens: 2, cost_usd: null, unpriced_calls: 5, seconds: 3 }, caps: {}, usage_by_provider: {},
      gate: { name: 'merge', subject: {}, waiting_since: null },
      open_questions: [{ id: 'Q1', role: 'critic', question: 'int or float?', status: 'answered', answer: 'int', answered_by: 'bob' }],
      solved: [{ check: 'criteria_satisfied', ok: true }, { check: 'tests_passed', ok: true }, { check: 'no_open_blocker', ok: true }, { check: 'synthesizer_accept', ok: false }],
    }),
  );
  try {
    const io = captureIo();
    expect(await runCli(['show', 'run_s', '--api', api.url], io.io)).toBe(0);
    expect(io.stdout()).toContain('the merge gate: roundtable approve|reject run_s (an approve token)');
    expect(io.stdout()).toContain('int or float? (answered by bob)');
    expect(io.stdout()).toContain('3/4 checks (criteria_satisfied yes, tests_passed yes, no_open_blocker yes, synthesizer_accept no)');
  } finally {
    await api.close();
  }
});

describe('parseCriteriaEdit', () => {
  it('reads a YAML list of strings and of { id, text }', () => {
    expect(parseCriteriaEdit('- id: AC2\n  text: b\n- c\n', 'f.yaml')).toEqual([{ id: 'AC2', text: 'b' }, { text: 'c' }]);
  });
  it('refuses an empty file and a bad id, naming the file', () => {
    expect(() => parseCriteriaEdit('# nothing\n', 'f.txt')).toThrow('--edit f.txt: it lists no criterion');
    expect(() => parseCriteriaEdit('- id: X1\n  text: b\n', 'f.yaml')).toThrow('--edit f.yaml: entry 1: id is a locked criterion id such as AC2');
  });
});
