import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ArtifactEntity } from '@roundtable/persistence';
import { ApiHarness, demoConfig, startApi } from './api-test-harness';
import { BuildRecords, PanelRecords } from '@roundtable/contracts';

jest.setTimeout(30_000);

/**
 * GET /v1/runs/:id/records, /diff and /files read what a run recorded in the database, never its
 * workspace. The runs here are posted, then given a snapshot by hand (runs.workflow_state as a
 * build's or a panel's step leaves it). /files is attacked the way a read-token holder would:
 * traversal plain and encoded, another run's file, names that are links on disk.
 */

const TOKENS = { read: 'records-read-0123456789abcdef', write: 'records-write-0123456789abcdef' };
const PANEL_DIR = join(__dirname, '../../../examples/panel-demo');

let api: ApiHarness;
let scratch: string;
let build: string;
let other: string;
let panel: string;
let idle: string;

type Json = Record<string, unknown>;

async function get(path: string, token: string | null = TOKENS.read) {
  const res = await fetch(`${api.base}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  return { status: res.status, headers: res.headers, text, json: (type.startsWith('application/json') ? JSON.parse(text) : undefined) as Json };
}

/** A request whose path goes out as written: fetch would resolve `..` and re-encode it first. */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  const url = new URL(api.base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, headers: { authorization: `Bearer ${TOKENS.read}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function submit(body: unknown): Promise<string> {
  const res = await fetch(`${api.base}/v1/runs`, { method: 'POST', headers: { authorization: `Bearer ${TOKENS.write}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

const DD_V1 = 'def max_drawdown(equity):\n    return 0.0\n';
const DD_V2 = 'def max_drawdown(equity):\n    peak, worst = float("-inf"), 0.0\n    return worst\n';
const EVIL_HTML = '<html><script>fetch("/v1/runs").then(r => r.text()).then(alert)</script></html>';
const DIFF = 'diff --git a/dd.py b/dd.py\nnew file mode 100644\n--- /dev/null\n+++ b/dd.py\n@@ -0,0 +1,3 @@\n+def max_drawdown(equity):\n';

const problem = (description: string) => ({ severity: 'major', description, location: 'dd.py:2' });
const diffOf = (runId: string, op: string, commit: string) => ({
  source: 'empty',
  branch: `roundtable/${runId}`,
  baseCommit: 'b'.repeat(40),
  commit,
  roundDiffstat: [{ path: 'dd.py', added: 3, deleted: 0 }],
  diffstat: [{ path: 'dd.py', added: 3, deleted: 0 }],
  artifactId: `${runId}-${op}-diff`,
  text: DIFF.slice(0, 40),
  truncated: false,
});
const impl = (label: string, over: Json) => ({
  id: `${build}-${label}`,
  label,
  callId: `${build}-call-${label}`,
  proposalLabel: 'P2',
  fixRound: 0,
  status: 'applied',
  applyError: null,
  body: { proposal_id: 'P2', files: [], test_command: 'python -m pytest -q', notes: 'first cut', assumptions: ['floats'], known_gaps: [] },
  ...over,
});

/** A build run's snapshot after a fix round: P1 criticized and revised, I1 failing its tests, I1f1 passing and reviewed, the synthesis written. */
function buildSnapshot(runId: string): Json {
  const proposal = (label: string, over: Json) => ({
    proposal_id: label,
    claim: `claim of ${label}`,
    approach: 'track the running peak',
    assumptions: ['equity is a list of floats'],
    evidence: ['README'],
    risks: ['empty input'],
    tests_required: ['test_empty'],
    responses_to_criticism: [],
    confidence: 0.7,
    ...over,
  });
  return {
    proposals: [
      { id: `${runId}-P1`, label: 'P1', callId: `${runId}-call-1`, round: 0, revisionOf: null, status: 'superseded', body: proposal('P1', {}) },
      {
        id: `${runId}-P2`,
        label: 'P2',
        callId: `${runId}-call-3`,
        round: 1,
        revisionOf: 'P1',
        status: 'accepted',
        body: proposal('P2', { revision_of: 'P1', responses_to_criticism: [{ problem: 'no empty case', action: 'fixed', reason: 'returns 0.0 for []' }] }),
      },
    ],
    critiques: [
      {
        id: `${runId}-C1`,
        label: 'C1',
        callId: `${runId}-call-2`,
        targetKind: 'proposal',
        targetLabel: 'P1',
        verdict: 'REVISE',
        body: { proposal_id: 'P1', verdict: 'REVISE', problems: [problem('no empty case')], counterarguments: [], tests_required: ['test_empty'], confidence: 0.8 },
      },
      {
        id: `${runId}-R1`,
        label: 'R1',
        callId: `${runId}-call-9`,
        targetKind: 'implementation',
        targetLabel: 'I1f1',
        verdict: 'ACCEPT',
        body: {
          implementation_id: 'I1f1',
          verdict: 'ACCEPT',
          requirement_checks: [{ requirement: 'Returns 0.0 for an empty series', satisfied: true, evidence: 'test_dd.py::test_empty' }],
          problems: [],
          confidence: 0.9,
        },
      },
    ],
    implementations: [
      impl('I1', {
        body: {
          proposal_id: 'P2',
          files: [
            { path: 'dd.py', content: DD_V1 },
            { path: 'notes.txt', content: 'scratch' },
            { path: 'evil.html', content: EVIL_HTML },
          ],
          test_command: 'python -m pytest -q',
          notes: 'first cut',
          assumptions: ['floats'],
          known_gaps: ['no NaN handling'],
        },
        diff: diffOf(runId, 'op1', 'c'.repeat(40)),
      }),
      impl('I1f1', {
        fixRound: 1,
        body: { proposal_id: 'P2', files: [{ path: 'dd.py', content: DD_V2 }], deleted: ['notes.txt'], test_command: 'python -m pytest -q', notes: 'fix', assumptions: [], known_gaps: [] },
        diff: diffOf(runId, 'op2', 'd'.repeat(40)),
      }),
      impl('I2', { status: 'rejected', applyError: 'path refused', body: { proposal_id: 'P2', files: [{ path: 'rejected.py', content: 'x = 1\n' }], test_command: 'pytest', notes: '', assumptions: [], known_gaps: [] } }),
    ],
    testRuns: [
      { id: `${runId}-T1`, label: 'T1', implementationLabel: 'I1', result: { command: 'python -m pytest -q', exit_code: 1, passed: 1, failed: 1, errors: 0, duration_s: 0.4, stdout_tail: '1 failed, 1 passed', timed_out: false } },
      { id: `${runId}-T2`, label: 'T2', implementationLabel: 'I1f1', result: { command: 'python -m pytest -q', exit_code: 0, passed: 2, failed: 0, errors: 0, duration_s: 0.3, stdout_tail: '2 passed' } },
    ],
    synthesis: {
      id: `${runId}-S1`,
      label: 'S1',
      callId: `${runId}-call-10`,
      partial: false,
      body: {
        what_was_built: 'max_drawdown in dd.py',
        test_summary: '2 passed',
        disagreements: [{ topic: 'NaN input', positions: [{ agent_role: 'critic', position: 'raise' }, { agent_role: 'engineer', position: 'skip' }], resolved: false }],
        remaining_risks: ['NaN'],
        overall_verdict: 'ACCEPT',
        confidence: 0.8,
      },
    },
    openQuestions: [{ role: 'critic', question: 'Should NaN raise?' }],
    fileReads: [],
    tree: ['dd.py', 'test_dd.py'],
  };
}

/** A panel run's snapshot after its appeal: five verdicts (one retried), two debate turns, the re-vote, the moderator. */
function panelSnapshot(runId: string): Json {
  const judges = ['vc', 'engineer', 'pm', 'customer', 'competitor'];
  const verdict = (judge: string, label: string, attempt: number, score: number) => ({
    id: `${runId}-${label}`,
    label,
    callId: `${runId}-call-${label}`,
    judge,
    attempt,
    body: { judge, score, stance: score > 5 ? 'for' : 'against', top_concerns: [`${judge} concern`], evidence: [`${judge} evidence`], what_would_change_my_mind: 'a pilot', confidence: 0.6 },
  });
  const rescore = (judge: string, label: string, phase: string, previous: number, requested: number, score: number, capped: boolean) => ({
    id: `${runId}-${label}`,
    label,
    callId: `${runId}-call-${label}`,
    judge,
    phase,
    previous,
    requested,
    score,
    capped,
    body: { judge, score: requested, changed: requested !== previous, change_reason: requested !== previous ? 'the debate' : null, confidence: 0.7 },
  });
  return {
    roastRetries: 1,
    roastBatch: ['pm'],
    verdicts: [...judges.map((j, i) => verdict(j, `V${i + 1}`, 0, 4 + i)), verdict('pm', 'V6', 1, 5)],
    debateRound: 1,
    turns: [
      { id: `${runId}-D1`, label: 'D1', callId: `${runId}-call-D1`, speaker: 'vc', round: 1, body: { speaker: 'vc', round: 1, message: 'The market is small.', responds_to: ['V2'] } },
      { id: `${runId}-D2`, label: 'D2', callId: `${runId}-call-D2`, speaker: 'engineer', round: 1, body: { speaker: 'engineer', round: 1, message: 'The integration is the hard part.' } },
    ],
    revoteBaseline: { vc: 4, engineer: 5, pm: 5, customer: 7, competitor: 8 },
    revotes: [rescore('vc', 'RV1', 'revote', 4, 9, 7, true), rescore('engineer', 'RV2', 'revote', 5, 5, 5, false), rescore('engineer', 'AP1', 'appeal', 5, 6, 6, false)],
    moderator: {
      id: `${runId}-M1`,
      label: 'M1',
      callId: `${runId}-call-M1`,
      partial: false,
      body: { overall_recommendation: 'ITERATE', confidence: 0.6, top_strengths: ['real pain'], top_risks: ['integration'], top_problems: ['sales cycle'], biggest_disagreement: 'vc and customer on demand', recommended_experiment: 'one ward pilot' },
    },
    quality: {
      status: 'weak',
      figures: { max_jaccard: 0.4, pairs: [], generic_rates: { pm: 0.5, vc: 0 }, duplicates: { pm: [['slow', 'too slow']] } },
      weak_judges: ['pm'],
      reasons: ['pm: generic evidence'],
    },
    lowConfidence: false,
    warnings: [{ kind: 'revote_capped', detail: 'vc asked 9 from 4', judges: ['vc'] }],
    appeal: { evidence: ['a partner letter'], judges: ['engineer'], status: 'completed', previous: { vc: 7, engineer: 5, pm: 5, customer: 7, competitor: 8 } },
    pending: {},
    phaseStartedAt: {},
    phaseSeconds: {},
    calls: [],
    counters: { V: 6, D: 2, RV: 2, AP: 1, M: 1 },
  };
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'rt-records-'));
  api = await startApi({ API_TOKENS: [{ name: 'reader', token: TOKENS.read, role: 'read' }, { name: 'writer', token: TOKENS.write, role: 'write' }] as never });
  [build, other, idle] = [await submit(demoConfig()), await submit(demoConfig()), await submit(demoConfig())];
  const panelCfg = parseYaml(readFileSync(join(PANEL_DIR, 'project.yaml'), 'utf8')) as { providers: { replay: { cassette: string } } };
  panelCfg.providers.replay.cassette = join(PANEL_DIR, panelCfg.providers.replay.cassette);
  panel = await submit(panelCfg);

  // The build run's workspace on disk holds files the run never wrote, and a link out of it: none may be answered.
  const workspace = join(scratch, 'workspace');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'dd.py'), 'ON DISK, NOT RECORDED\n');
  writeFileSync(join(workspace, 'ondisk.py'), 'ON DISK ONLY\n');
  symlinkSync('/etc/passwd', join(workspace, 'passwd.py'));
  const snapshot = (state: Json) => JSON.stringify(state);
  await api.ds.query(
    `UPDATE runs SET status = 'done', stage = 'DONE', workspace_path = $2, criteria = $3, workflow_state = $4 WHERE id = $1`,
    [build, workspace, JSON.stringify([{ id: 'AC1', text: 'Returns 0.0 for an empty series' }]), snapshot(buildSnapshot(build))],
  );
  // Another run with a file of its own, and its own diff.
  const otherState = buildSnapshot(other) as { implementations: Json[] };
  otherState.implementations = [{ ...impl('I1', { body: { proposal_id: 'P1', files: [{ path: 'secret.py', content: 'TOKEN = "other run"\n' }], test_command: 'pytest', notes: '', assumptions: [], known_gaps: [] } }) }];
  await api.ds.query(`UPDATE runs SET status = 'done', stage = 'DONE', workflow_state = $2 WHERE id = $1`, [other, snapshot(otherState)]);
  await api.ds.query(`UPDATE runs SET status = 'done', stage = 'DONE', workflow_state = $2 WHERE id = $1`, [panel, snapshot(panelSnapshot(panel))]);
  const artifact = (runId: string, op: string, content: string) => ({ id: `${runId}-${op}-diff`, runId, callId: null, kind: 'diff' as const, path: `diffs/${op}.diff`, sha256: 'x', bytes: content.length, content });
  await api.ds.getRepository(ArtifactEntity).insert([artifact(build, 'op1', 'FIRST ROUND ONLY\n'), artifact(build, 'op2', DIFF)]);
});

afterAll(async () => {
  await api?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('GET /v1/runs/:id/records', () => {
  it("maps a build run's snapshot: proposals with the reviser's responses, critiques apart from reviews, implementations, tests, synthesis", async () => {
    const res = await get(`/v1/runs/${build}/records`);
    expect(res.status).toBe(200);
    const r = BuildRecords.strict().parse(res.json);
    expect(r.acceptance_criteria).toEqual([{ id: 'AC1', text: 'Returns 0.0 for an empty series' }]);
    expect(r.proposals.map((p) => [p.label, p.round, p.revision_of, p.status])).toEqual([
      ['P1', 0, null, 'superseded'],
      ['P2', 1, 'P1', 'accepted'],
    ]);
    expect(r.proposals[1]).toMatchObject({ claim: 'claim of P2', approach: 'track the running peak', tests_required: ['test_empty'], confidence: 0.7, call_id: `${build}-call-3` });
    expect(r.proposals[1].responses_to_criticism).toEqual([{ problem: 'no empty case', action: 'fixed', reason: 'returns 0.0 for []' }]);
    expect(r.critiques).toEqual([
      { label: 'C1', call_id: `${build}-call-2`, target_label: 'P1', verdict: 'REVISE', problems: [problem('no empty case')], counterarguments: [], tests_required: ['test_empty'], confidence: 0.8 },
    ]);
    expect(r.reviews).toEqual([
      {
        label: 'R1',
        call_id: `${build}-call-9`,
        target_label: 'I1f1',
        verdict: 'ACCEPT',
        requirement_checks: [{ requirement: 'Returns 0.0 for an empty series', satisfied: true, evidence: 'test_dd.py::test_empty' }],
        problems: [],
        confidence: 0.9,
      },
    ]);
    expect(r.implementations.map((i) => [i.label, i.fix_round, i.status, i.files, i.deleted])).toEqual([
      [
        'I1',
        0,
        'applied',
        [
          { path: 'dd.py', bytes: Buffer.byteLength(DD_V1) },
          { path: 'notes.txt', bytes: 7 },
          { path: 'evil.html', bytes: Buffer.byteLength(EVIL_HTML) },
        ],
        [],
      ],
      ['I1f1', 1, 'applied', [{ path: 'dd.py', bytes: Buffer.byteLength(DD_V2) }], ['notes.txt']],
      ['I2', 0, 'rejected', [{ path: 'rejected.py', bytes: 6 }], []],
    ]);
    expect(r.implementations[1].commit).toEqual({
      source: 'empty',
      branch: `roundtable/${build}`,
      base_commit: 'b'.repeat(40),
      commit: 'd'.repeat(40),
      round_diffstat: [{ path: 'dd.py', added: 3, deleted: 0 }],
      diffstat: [{ path: 'dd.py', added: 3, deleted: 0 }],
      diff_truncated: false,
    });
    expect(r.implementations[2]).toMatchObject({ commit: null, apply_error: 'path refused' });
    expect(r.implementations[0]).toMatchObject({ test_command: 'python -m pytest -q', notes: 'first cut', assumptions: ['floats'], known_gaps: ['no NaN handling'] });
    expect(r.test_runs).toEqual([
      { label: 'T1', implementation_label: 'I1', command: 'python -m pytest -q', exit_code: 1, passed: 1, failed: 1, errors: 0, duration_s: 0.4, timed_out: false, output_tail: '1 failed, 1 passed' },
      // A result recorded before timed_out existed reads as not timed out.
      { label: 'T2', implementation_label: 'I1f1', command: 'python -m pytest -q', exit_code: 0, passed: 2, failed: 0, errors: 0, duration_s: 0.3, timed_out: false, output_tail: '2 passed' },
    ]);
    expect(r.synthesis).toEqual({
      label: 'S1',
      call_id: `${build}-call-10`,
      partial: false,
      what_was_built: 'max_drawdown in dd.py',
      test_summary: '2 passed',
      remaining_risks: ['NaN'],
      recommended_next_experiment: null,
      overall_verdict: 'ACCEPT',
      confidence: 0.8,
    });
    expect(r.disagreements).toEqual([{ topic: 'NaN input', positions: [{ agent_role: 'critic', position: 'raise' }, { agent_role: 'engineer', position: 'skip' }], resolved: false, resolution: null }]);
    expect(r.open_questions).toEqual([{ role: 'critic', question: 'Should NaN raise?' }]);
  });

  it('answers a run that has not started with empty records', async () => {
    const res = await get(`/v1/runs/${idle}/records`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      workflow: 'build',
      acceptance_criteria: null,
      proposals: [],
      critiques: [],
      implementations: [],
      test_runs: [],
      reviews: [],
      synthesis: null,
      disagreements: [],
      open_questions: [],
    });
  });

  it("maps a panel run's snapshot: a card per judge with its quality flags, the debate in order, the re-vote, the moderator, the appeal", async () => {
    const res = await get(`/v1/runs/${panel}/records`);
    expect(res.status).toBe(200);
    const r = PanelRecords.strict().parse(res.json);
    expect(r.idea.title).toBe('Swapboard');
    expect(r.judges.map((j) => [j.judge, j.score, j.verdict?.label, j.earlier_verdicts.map((v) => v.label), j.weak])).toEqual([
      ['vc', 7, 'V1', [], false],
      ['engineer', 6, 'V2', [], false],
      ['pm', 5, 'V6', ['V3'], true],
      ['customer', 7, 'V4', [], false],
      ['competitor', 8, 'V5', [], false],
    ]);
    const pm = r.judges[2];
    expect(pm).toMatchObject({ generic_rate: 0.5, duplicate_concerns: [['slow', 'too slow']] });
    expect(pm.verdict).toEqual({ label: 'V6', call_id: `${panel}-call-V6`, attempt: 1, score: 5, stance: 'against', top_concerns: ['pm concern'], evidence: ['pm evidence'], what_would_change_my_mind: 'a pilot', confidence: 0.6 });
    expect(r.judges[0]).toMatchObject({ generic_rate: 0, duplicate_concerns: [] });
    expect(r.judges[1].generic_rate).toBeNull();
    expect(r.quality).toEqual({ status: 'weak', max_jaccard: 0.4, weak_judges: ['pm'], reasons: ['pm: generic evidence'] });
    expect(r.debate).toEqual([
      { label: 'D1', call_id: `${panel}-call-D1`, speaker: 'vc', round: 1, message: 'The market is small.', responds_to: ['V2'] },
      { label: 'D2', call_id: `${panel}-call-D2`, speaker: 'engineer', round: 1, message: 'The integration is the hard part.', responds_to: [] },
    ]);
    expect(r.revote?.baseline).toEqual({ vc: 4, engineer: 5, pm: 5, customer: 7, competitor: 8 });
    expect(r.revote?.rescores).toEqual([
      { label: 'RV1', call_id: `${panel}-call-RV1`, judge: 'vc', previous: 4, requested: 9, score: 7, delta: 3, capped: true, changed: true, change_reason: 'the debate', confidence: 0.7 },
      { label: 'RV2', call_id: `${panel}-call-RV2`, judge: 'engineer', previous: 5, requested: 5, score: 5, delta: 0, capped: false, changed: false, change_reason: null, confidence: 0.7 },
    ]);
    expect(r.moderator).toMatchObject({ label: 'M1', overall_recommendation: 'ITERATE', biggest_disagreement: 'vc and customer on demand', recommended_experiment: 'one ward pilot', top_strengths: ['real pain'] });
    expect(r.appeal).toMatchObject({ status: 'completed', evidence: ['a partner letter'], judges: ['engineer'], previous: { engineer: 5 } });
    expect(r.appeal?.rescores.map((x) => [x.label, x.previous, x.score, x.delta])).toEqual([['AP1', 5, 6, 1]]);
    expect(r.warnings).toEqual([{ kind: 'revote_capped', detail: 'vc asked 9 from 4', judges: ['vc'] }]);
  });

  it('404s an unknown run and refuses a request without a token', async () => {
    expect((await get('/v1/runs/run_nope/records')).json).toEqual({ error: 'run_not_found', message: 'no run run_nope' });
    expect((await get(`/v1/runs/${build}/records`, null)).status).toBe(401);
  });
});

describe('GET /v1/runs/:id/diff', () => {
  it("answers the run branch's whole diff: the last commit's stored diff, as inert text", async () => {
    const res = await get(`/v1/runs/${build}/diff`);
    expect(res.status).toBe(200);
    expect(res.text).toBe(DIFF);
    expect(res.headers.get('content-type')).toBe('text/x-diff; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
  });

  it('404s no_diff for a run that applied nothing to a git workspace, and an unknown run', async () => {
    expect((await get(`/v1/runs/${idle}/diff`)).json).toMatchObject({ error: 'no_diff' });
    // `other` records an implementation without a commit (a workspace without git).
    expect((await get(`/v1/runs/${other}/diff`)).status).toBe(404);
    expect((await get('/v1/runs/run_nope/diff')).json.error).toBe('run_not_found');
  });

  it('is a 409 for a panel run', async () => {
    const res = await get(`/v1/runs/${panel}/diff`);
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ error: 'diff_unavailable' });
  });
});

describe('GET /v1/runs/:id/files', () => {
  const file = (path: string, runId = build) => get(`/v1/runs/${runId}/files?path=${encodeURIComponent(path)}`);

  it('answers a file as the run last wrote it, from its records, not the disk', async () => {
    const res = await file('dd.py');
    expect(res.status).toBe(200);
    expect(res.text).toBe(DD_V2);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    // The same file spelled another way is the same file.
    expect((await file('./dd.py')).text).toBe(DD_V2);
  });

  it('sends a model-written page as inert text: never HTML, never sniffed, sandboxed', async () => {
    const res = await file('evil.html');
    expect(res.status).toBe(200);
    expect(res.text).toBe(EVIL_HTML);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
  });

  it('404s a path the run never wrote, one it deleted after, and one only a rejected implementation wrote', async () => {
    expect((await file('ondisk.py')).json).toMatchObject({ error: 'file_not_found' });
    expect((await file('notes.txt')).json).toEqual({ error: 'file_deleted', message: `run ${build} wrote "notes.txt" in I1 and deleted it in I1f1` });
    expect((await file('rejected.py')).json.error).toBe('file_not_found');
  });

  it("never reads the workspace: a link on disk to /etc/passwd, and a file only on disk, are not the run's", async () => {
    const link = await file('passwd.py');
    expect(link.status).toBe(404);
    expect(link.json.error).toBe('file_not_found');
    expect(link.text).not.toContain('root:');
    const onDisk = await file('ondisk.py');
    expect(onDisk.status).toBe(404);
    expect(onDisk.json.error).toBe('file_not_found');
    expect(onDisk.text).not.toContain('ON DISK');
  });

  it("404s another run's file asked for under this run's id", async () => {
    expect((await file('secret.py', other)).text).toBe('TOKEN = "other run"\n');
    const res = await file('secret.py', build);
    expect(res.status).toBe(404);
    expect(res.text).not.toContain('other run');
  });

  it.each([
    ['../../etc/passwd', "contains '..'"],
    ['src/../../etc/passwd', "contains '..'"],
    ['/etc/passwd', 'is absolute'],
    ['C:/Windows/win.ini', 'is absolute'],
    ['dd.py\0.txt', 'NUL'],
    ['src\\..\\dd.py', 'backslash'],
    ['', 'is empty'],
    ['.git/config', 'inside .git'],
    ['dd.py\n', 'control character'],
  ])('refuses %j with a 400 invalid_path naming path and the fix', async (path, why) => {
    const res = await file(path);
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('invalid_path');
    expect(res.json.message).toContain(why);
    expect(res.json.message).toContain('relative to the workspace');
    expect(res.json.issues).toEqual([{ path: 'path', message: res.json.message }]);
  });

  it('refuses a path over 1024 characters before looking it up', async () => {
    const res = await file(`${'a/'.repeat(600)}dd.py`);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: 'invalid_path', issues: [{ path: 'path' }] });
    expect(res.json.message).toMatch(/^path is 1205 characters; at most 1024: give a path relative to the workspace/);
  });

  it('refuses traversal encoded in the query (%2e%2e, %2f), decoded once as the router does', async () => {
    for (const q of ['%2e%2e/%2e%2e/etc/passwd', '%2E%2E%2F%2E%2E%2Fetc%2Fpasswd', '..%2f..%2fetc%2fpasswd', 'x/%2e%2e/%2e%2e/etc/passwd']) {
      const res = await rawGet(`/v1/runs/${build}/files?path=${q}`);
      expect([q, res.status]).toEqual([q, 400]);
      expect(JSON.parse(res.body).error).toBe('invalid_path');
    }
    // Encoded twice it is decoded once: a literal name with % in it, which the run never wrote.
    const twice = await rawGet(`/v1/runs/${build}/files?path=%252e%252e/%252e%252e/etc/passwd`);
    expect(twice.status).toBe(404);
    expect(twice.body).not.toContain('root:');
  });

  it('refuses a path missing or given twice', async () => {
    const missing = await get(`/v1/runs/${build}/files`);
    expect(missing.status).toBe(400);
    expect(missing.json.message).toMatch(/^path is required/);
    const twice = await get(`/v1/runs/${build}/files?path=dd.py&path=../x`);
    expect(twice.status).toBe(400);
    expect(twice.json.message).toMatch(/^path must be given once/);
  });

  it('answers a run id that tries to leave /v1/runs with a 404, and a panel run with a 409', async () => {
    for (const id of ['..', '..%2f..%2fetc', '%2e%2e']) {
      const res = await rawGet(`/v1/runs/${id}/files?path=dd.py`);
      expect([id, res.status]).toEqual([id, 404]);
      expect(res.body).not.toContain('max_drawdown');
    }
    const res = await file('dd.py', panel);
    expect(res.status).toBe(409);
    expect(res.json.error).toBe('files_unavailable');
  });

  it('keeps its doors: a read token reads, no token is a 401, a write method is no route', async () => {
    expect((await get(`/v1/runs/${build}/files?path=dd.py`, null)).status).toBe(401);
    expect((await get(`/v1/runs/${build}/files?path=dd.py`, 'not-a-token')).status).toBe(401);
    const put = await fetch(`${api.base}/v1/runs/${build}/files?path=dd.py`, { method: 'PUT', headers: { authorization: `Bearer ${TOKENS.write}`, 'content-type': 'application/json' }, body: '{}' });
    expect(put.status).toBe(404);
    expect((await file('dd.py')).text).toBe(DD_V2);
  });
});
