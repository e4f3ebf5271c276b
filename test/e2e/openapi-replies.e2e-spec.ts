import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Pipeline, projectConfigFrom, startPipeline, TERMINAL_STATUSES, waitFor } from '@roundtable/testing';
import { checkedFetch, type CheckedReply, OpenApiReplyChecker, type OpenApiDocument } from './support/openapi-reply-checker';
import { backtestRepo } from './support/backtest-repo';

jest.setTimeout(240_000);

const REPO = path.resolve(__dirname, '../..');
const BUILD_DEMO = path.join(REPO, 'examples/dd-demo/project.yaml');
const PANEL_DEMO = path.join(REPO, 'examples/panel-demo/project.yaml');
const HALTING_CASSETTE = path.join(REPO, 'test/fixtures/budget-halt/cassette.yaml');
const EXPERIMENT_EXAMPLE = path.join(REPO, 'examples/experiment-backtest');
// The proposer of an idea's drafted experiment (test/e2e/idea-experiment.e2e-spec.ts): it drafts the example's PASS preregistration.
const PROPOSER_CASSETTE = path.join(REPO, 'test/fixtures/idea-experiment/proposer.cassette.yaml');
const TOKENS = {
  write: 'e2e-openapi-write-0123456789abcdef',
  read: 'e2e-openapi-read-0123456789abcdef',
  // A write token of its own, spent to reach the write quota without touching the others'.
  burst: 'e2e-openapi-burst-0123456789abcdef',
  // The idea routes' writes, on a quota of their own.
  ideas: 'e2e-openapi-ideas-0123456789abcdef',
};
const WRITES_PER_MIN = 40;
// The demo's evidence for the panel's one appeal: its cassette holds the judges' replies to it.
const APPEAL = {
  evidence: ['RLDatix partner programme letter: Swapboard accepted as an integration partner with read-write roster API access from Q3'],
  judges: ['engineer', 'pm'],
};

type Run = { id: string; status: string; workflow: string; panel?: { appeal: { status: string } | null } };
type ListedRun = { id: string; workflow: string; usage: { calls: number; tokens: number; cost_usd: number | null } };
type BuildRecords = { workflow: 'build'; proposals: unknown[]; critiques: unknown[]; implementations: { label: string; files: { path: string; bytes: number }[] }[]; test_runs: unknown[]; reviews: unknown[] };
type PanelRecords = { workflow: 'panel'; judges: { judge: string; score: number | null }[]; debate: unknown[]; revote: unknown; moderator: unknown; appeal: unknown };
type Event = { type: string; sequence: number };
type Experiment = { id: string; status: string; decision: string | null; run_id: string | null; preregistration: Record<string, unknown> | null; prereg_hash: string | null };

/**
 * The OpenAPI document tells the truth: the four services run from their bundles on the replay
 * provider, and every reply of every route exercised here (each build and panel route, their
 * filters, the event stream, and the error answers that are cheap to provoke) is held against the
 * document the api serves at /docs/openapi.json: a status the document does not declare, a
 * content type it does not list, a declared header missing, or a body its schema does not
 * accept is a failure. Every operation in the document must have been exercised.
 */
describe('every reply matches the served OpenAPI document', () => {
  let pipeline: Pipeline;
  let checker: OpenApiReplyChecker;
  let api: ReturnType<typeof checkedFetch>;
  const runs: Record<'build' | 'panel' | 'halted' | 'cancelled', string> = { build: '', panel: '', halted: '', cancelled: '' };
  // The ideas test's ideas, for the experiments test: one with a done panel, one without.
  const ideas: Record<'panelled' | 'unpanelled', string> = { panelled: '', unpanelled: '' };
  // A stand-in for the built workbench (apps/web), so the page route answers whether or not dist/apps/web was built.
  const webRoot = mkdtempSync(path.join(tmpdir(), 'rt-e2e-web-'));
  writeFileSync(path.join(webRoot, 'index.html'), '<!doctype html><title>workbench</title>');
  // A git copy of the experiment example, the repository an experiment is pinned to (under the policy's /tmp root).
  const experimentTmp = mkdtempSync(path.join(tmpdir(), 'rt-e2e-openapi-experiment-'));
  const experimentRepo = path.join(experimentTmp, 'backtest');

  beforeAll(async () => {
    backtestRepo(experimentRepo);
    pipeline = await startPipeline({
      // The experiment example's interpreter and critic are on replay_a and replay_b; an idea's drafted experiment's proposer on replay_x.
      providerQueues: 'replay,replay_x,replay_a,replay_b',
      apiEnv: { WEB_ROOT: webRoot },
      env: {
        API_TOKENS: `writer:${TOKENS.write}:write,reader:${TOKENS.read}:read,burst:${TOKENS.burst}:write,ideas:${TOKENS.ideas}:write`,
        HOST: '127.0.0.1',
        RATE_LIMIT_WRITES_PER_MIN: String(WRITES_PER_MIN),
        SSE_RETRY_MS: '300',
      },
    });
    const res = await fetch(`${pipeline.api}/docs/openapi.json`, { headers: { authorization: `Bearer ${TOKENS.read}` } });
    expect(res.status).toBe(200);
    checker = new OpenApiReplyChecker((await res.json()) as OpenApiDocument);
    api = checkedFetch(pipeline.api, checker, TOKENS);
  });

  afterAll(async () => {
    await pipeline?.stop();
    rmSync(webRoot, { recursive: true, force: true });
    rmSync(experimentTmp, { recursive: true, force: true });
  });

  /** Polls GET /v1/runs/:id (each answer checked too) until the run has ended. */
  const terminal = (id: string, timeoutMs = 60_000) =>
    waitFor(
      `run ${id} to end`,
      async () => {
        const { body } = await api<Run>('GET', `/v1/runs/${id}`);
        return (TERMINAL_STATUSES as readonly string[]).includes(body.status) ? body : undefined;
      },
      timeoutMs,
      200,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${pipeline.logs()}`);
    });

  const submit = async (config: unknown): Promise<string> => {
    const res = await api<{ id: string }>('POST', '/v1/runs', { body: config });
    expect(res.status).toBe(202);
    return res.body.id;
  };

  it('serves itself as a documented route, and the health routes without a token', async () => {
    expect((await api('GET', '/docs/openapi.json', { token: 'read' })).status).toBe(200);
    expect((await api('GET', '/healthz', { token: 'none' })).status).toBe(200);
    expect((await api('GET', '/readyz', { token: 'none' })).status).toBe(200);
    // The workbench's page needs no token either: it holds no run data.
    const page = await api('GET', '/', { token: 'none' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect((await api('GET', '/metrics', { token: 'read' })).status).toBe(200);
    // The provider registry: the pipeline's provider-worker has published itself.
    const providers = await api<{ providers: unknown[] } | unknown[]>('GET', '/v1/providers', { token: 'read' });
    expect(providers.status).toBe(200);
    // Who a token is: the workbench shows act buttons to write tokens only.
    expect((await api<{ role: string }>('GET', '/v1/me', { token: 'read' })).body).toEqual({ name: 'reader', role: 'read', team: 'default' });
    expect((await api<{ role: string }>('GET', '/v1/me', { token: 'write' })).body).toEqual({ name: 'writer', role: 'write', team: 'default' });
    // What New run and the run page read: the shipped examples, and each workflow's shape.
    expect((await api<unknown[]>('GET', '/v1/examples', { token: 'read' })).body.length).toBeGreaterThan(0);
    const workflows = await api<{ name: string }[]>('GET', '/v1/workflows', { token: 'read' });
    expect(workflows.body.map((w) => w.name).sort()).toEqual(['build', 'experiment', 'panel']);
  });

  it('a build run: submitted, followed live, listed, read, reported, its calls filtered, its stream resumed', async () => {
    const id = (runs.build = await submit(projectConfigFrom(BUILD_DEMO)));
    // Followed from the start while it runs: the stream ends after the terminal event.
    const live = await api<Event[]>('GET', `/v1/runs/${id}/events`, { token: 'read' });
    expect(live.status).toBe(200);
    expect(live.body.at(-1)?.type).toBe('run_completed');
    expect(live.body.map((e) => e.type)).toContain('criteria_locked');
    const run = await terminal(id);
    expect(run.status).toBe('done');

    expect((await api('GET', '/v1/runs', { token: 'read' })).status).toBe(200);
    expect((await api('GET', '/v1/runs?status=done&limit=5', { token: 'read' })).status).toBe(200);
    expect((await api('GET', `/v1/runs/${id}/report`, { token: 'read' })).status).toBe(200);
    const calls = await api<{ id: string }[]>('GET', `/v1/runs/${id}/calls`, { token: 'read' });
    expect(calls.body.length).toBeGreaterThan(0);
    for (const q of ['role=critic', 'stage=CRITIQUE', 'failed=false', 'failed=true', 'role=engineer&stage=IMPLEMENT']) {
      expect((await api('GET', `/v1/runs/${id}/calls?${q}`, { token: 'read' })).status).toBe(200);
    }
    expect((await api('GET', `/v1/runs/${id}/calls/${calls.body[0].id}`, { token: 'read' })).status).toBe(200);
    // The playground: the first call asked again outside the run (202), and its tries listed.
    expect((await api('POST', `/v1/runs/${id}/calls/${calls.body[0].id}/playground`, { body: { model: 'claude-haiku-4-5' } })).status).toBe(202);
    expect((await api<unknown[]>('GET', `/v1/runs/${id}/calls/${calls.body[0].id}/playground`, { token: 'read' })).body.length).toBe(1);

    // The run page's routes: the list's usage, the records, the branch's diff and a file it wrote.
    const listed = await api<ListedRun[]>('GET', '/v1/runs?workflow=build', { token: 'read' });
    expect(listed.body.every((r) => r.workflow === 'build')).toBe(true);
    expect(listed.body.find((r) => r.id === id)?.usage.calls).toBe(calls.body.length);
    const records = await api<BuildRecords>('GET', `/v1/runs/${id}/records`, { token: 'read' });
    expect(records.status).toBe(200);
    expect(records.body.workflow).toBe('build');
    for (const list of ['proposals', 'critiques', 'implementations', 'test_runs', 'reviews'] as const) expect([list, records.body[list].length > 0]).toEqual([list, true]);
    const written = records.body.implementations.flatMap((i) => i.files.map((f) => f.path));
    expect(written).toContain('dd.py');
    const diff = await api('GET', `/v1/runs/${id}/diff`, { token: 'read' });
    expect(diff.status).toBe(200);
    expect(diff.text).toContain('dd.py');
    const file = await api('GET', `/v1/runs/${id}/files?path=dd.py`, { token: 'read' });
    expect(file.status).toBe(200);
    expect(file.text).toContain('def max_drawdown');
    expect((await api('GET', `/v1/runs/${id}/files?path=..%2F..%2Fetc%2Fpasswd`, { token: 'read' })).status).toBe(400);
    expect((await api('GET', `/v1/runs/${id}/files?path=never-written.py`, { token: 'read' })).status).toBe(404);
    const schema = await api<{ schema: { type: string } | null }>('GET', `/v1/runs/${id}/calls/${calls.body[0].id}`, { token: 'read' });
    expect(schema.body.schema?.type).toBe('object');

    // A greenfield run's branch as a bundle and a patch, once the export op (after the end) has stored them.
    await waitFor('the run branch bundle', async () => ((await api('GET', `/v1/runs/${id}/bundle`, { token: 'read' })).status === 200 ? true : undefined));
    const patch = await api('GET', `/v1/runs/${id}/patch`, { token: 'read' });
    expect(patch.status).toBe(200);
    expect(patch.text).toContain('+++ b/dd.py');
    // People in the loop: a write token may not approve (403), and a done run has no question to answer (404).
    expect((await api('POST', `/v1/runs/${id}/approvals`, { body: { gate: 'merge', decision: 'approve' } })).status).toBe(403);
    expect((await api('POST', `/v1/runs/${id}/answers`, { body: { question_id: 'Q1', answer: 'yes' } })).status).toBe(404);

    // Resumed from the middle (?after= and Last-Event-ID), and told 204 once everything was seen.
    const last = live.body.at(-1)!.sequence;
    const tail = await api<Event[]>('GET', `/v1/runs/${id}/events?after=${last - 2}`, { token: 'read' });
    expect(tail.body.map((e) => e.sequence)).toEqual([last - 1, last]);
    expect((await api('GET', `/v1/runs/${id}/events`, { token: 'read', headers: { 'last-event-id': String(last - 1) } })).body).toHaveLength(1);
    expect((await api('GET', `/v1/runs/${id}/events`, { token: 'read', headers: { 'last-event-id': String(last) } })).status).toBe(204);
  });

  it('a panel run: read with its panel block, reported, filtered by judge, appealed once', async () => {
    const id = (runs.panel = await submit(projectConfigFrom(PANEL_DEMO)));
    const run = await terminal(id);
    expect(run).toMatchObject({ status: 'done', workflow: 'panel' });
    expect((await api('GET', `/v1/runs/${id}/report`, { token: 'read' })).status).toBe(200);
    expect((await api('GET', `/v1/runs/${id}/calls?role=vc&stage=ROAST`, { token: 'read' })).status).toBe(200);
    const before = await api<Event[]>('GET', `/v1/runs/${id}/events`, { token: 'read' });
    expect(before.body.at(-1)?.type).toBe('run_completed');

    expect((await api('POST', `/v1/runs/${id}/appeal`, { body: { evidence: [], judges: ['vc'] } })).status).toBe(400);
    expect((await api('POST', `/v1/runs/${id}/appeal`, { body: APPEAL })).status).toBe(202);
    // The appeal's events follow run_completed on a subscription after it; appeal_completed ends it.
    const appeal = await api<Event[]>('GET', `/v1/runs/${id}/events?after=${before.body.at(-1)!.sequence}`, { token: 'read' });
    expect(appeal.body.at(-1)?.type).toBe('appeal_completed');
    expect((await api('POST', `/v1/runs/${id}/appeal`, { body: APPEAL })).status).toBe(409);
    const after = await api<Run>('GET', `/v1/runs/${id}`, { token: 'read' });
    expect(after.body.panel?.appeal?.status).toBe('completed');

    const records = await api<PanelRecords>('GET', `/v1/runs/${id}/records`, { token: 'read' });
    expect(records.body.workflow).toBe('panel');
    expect(records.body.judges.map((j) => j.judge)).toEqual(['vc', 'engineer', 'pm', 'customer', 'competitor']);
    expect(records.body.debate.length).toBeGreaterThan(0);
    expect(records.body.moderator).not.toBeNull();
    expect(records.body.appeal).not.toBeNull();
    // The record (issue 26): the chain verifies, and the export carries it with the report.
    const verdict = await api<{ intact: boolean; head: string }>('GET', `/v1/runs/${id}/verify`, { token: 'read' });
    expect(verdict.body).toMatchObject({ intact: true });
    const exported = await api<{ head_hash: string; artifacts: unknown[] }>('GET', `/v1/runs/${id}/export`, { token: 'read' });
    expect(exported.body.head_hash).toBe(verdict.body.head);
    expect(exported.body.artifacts.length).toBeGreaterThan(0);
    expect((await api<ListedRun[]>('GET', '/v1/runs?workflow=panel', { token: 'read' })).body.map((r) => r.id)).toContain(id);
    // A panel changes no files.
    expect((await api('GET', `/v1/runs/${id}/diff`, { token: 'read' })).status).toBe(409);
    expect((await api('GET', `/v1/runs/${id}/files?path=dd.py`, { token: 'read' })).status).toBe(409);
  });

  it('a halted run: resumed (a bad body first), then its whole stream', async () => {
    const config = projectConfigFrom(BUILD_DEMO, { budget: { max_calls: 4 }, providers: { replay: { type: 'replay', cassette: HALTING_CASSETTE } } });
    const id = (runs.halted = await submit(config));
    expect((await terminal(id)).status).toBe('halted');
    const bad = await api('POST', `/v1/runs/${id}/resume`, { body: { from: 'NOWHERE' } });
    expect(bad.status).toBe(400);
    const malformed = await api('POST', `/v1/runs/${id}/resume`, { body: '{"caps": ', contentType: 'application/json' });
    expect(malformed.status).toBe(400);
    const halted = await api<Event[]>('GET', `/v1/runs/${id}/events`, { token: 'read' });
    expect((await api('POST', `/v1/runs/${id}/resume`, { body: { caps: { max_calls: 12 } } })).status).toBe(202);
    // Once the orchestrator has taken the resume, the stream after the halt follows the resumed run to its next end.
    // Whatever it does with a cassette that ends early, every event it writes must be documented.
    await waitFor('the run_resumed event', async () => (await pipeline.sql(`SELECT 1 FROM run_events WHERE run_id = $1 AND type = 'run_resumed'`, [id])).length > 0, 30_000);
    // Asked again while the step that resumed it settles (a reply without the resumed events has been
    // seen once in CI, right after run_resumed landed: noted in the closing note to find out why).
    const seen: string[] = [];
    const first = await waitFor('the stream after the halt to start with run_resumed', async () => {
      const r = await api<Event[]>('GET', `/v1/runs/${id}/events?after=${halted.body.at(-1)!.sequence}`, { token: 'read' });
      seen.push(`${r.status}:${r.body?.[0]?.type ?? 'nothing'}`);
      return r.body?.[0]?.type === 'run_resumed' ? r.body[0] : undefined;
    }, 30_000, 250).catch((e: Error) => {
      throw new Error(`${e.message}; replies seen: ${seen.join(', ')}`);
    });
    expect(first.type).toBe('run_resumed');
    await terminal(id);
  });

  it('forks: the build run from CRITIQUE with an edited requirement (the proposal copied, the rest asked again, to done), the panel from DEBATE', async () => {
    expect((await api('POST', `/v1/runs/${runs.build}/fork`, { body: { from: 'TEST' } })).status).toBe(400);
    const requirements = ['Returns 0.0 for monotonically increasing or empty series', 'Handles a series that ends at its trough', 'Standard library only'];
    const res = await api<{ id: string; forked_from: { copied_calls: number } }>('POST', `/v1/runs/${runs.build}/fork`, { body: { from: 'CRITIQUE', edits: { requirements } } });
    expect(res.status).toBe(202);
    expect(res.body.forked_from.copied_calls).toBe(1);
    const fork = await terminal(res.body.id);
    expect(fork.status).toBe('done');
    const calls = await api<{ label: string; stage: string; copied_from: string | null }[]>('GET', `/v1/runs/${res.body.id}/calls`, { token: 'read' });
    // Only P1 came from the original; nothing at PROPOSE was asked again.
    expect(calls.body.filter((c) => c.copied_from !== null).map((c) => c.label)).toEqual(['P1']);
    expect(calls.body.filter((c) => c.stage === 'PROPOSE' && c.copied_from === null)).toEqual([]);
    expect(calls.body.filter((c) => c.copied_from === null).length).toBeGreaterThan(0);
    // The panel forks the same way: the five judges' first verdicts copied, the debate asked again.
    const panelFork = await api<{ id: string; forked_from: { copied_calls: number } }>('POST', `/v1/runs/${runs.panel}/fork`, { body: { from: 'DEBATE' } });
    expect(panelFork.status).toBe(202);
    expect(panelFork.body.forked_from.copied_calls).toBe(5);
    expect((await terminal(panelFork.body.id)).status).toBe('done');
    const panelCalls = await api<{ stage: string; copied_from: string | null }[]>('GET', `/v1/runs/${panelFork.body.id}/calls`, { token: 'read' });
    expect(panelCalls.body.filter((c) => c.copied_from !== null).map((c) => c.stage)).toEqual(['ROAST', 'ROAST', 'ROAST', 'ROAST', 'ROAST']);
    expect(panelCalls.body.filter((c) => c.stage === 'ROAST' && c.copied_from === null)).toEqual([]);
  });

  it('ideas: worksheet versions (copy-on-write, a locked one refused), readiness, the ledger, a panel on a version, and their errors', async () => {
    const w = { token: 'ideas' };
    const sheet = {
      title: 'Swapboard',
      problem: 'Nurses wait two days for a paper approval of a shift swap.',
      target_user: 'ward nurses and ward managers',
      solution: 'A phone app where nurses post and claim shifts and the manager approves with one tap.',
      assumptions: ['managers approve in the app'],
      no_evidence_yet: true,
    };
    const created = await api<{ id: string }>('POST', '/v1/ideas', { ...w, body: sheet });
    expect(created.status).toBe(201);
    const id = (ideas.panelled = created.body.id);
    expect((await api<unknown[]>('GET', '/v1/ideas', { token: 'read' })).body.length).toBeGreaterThan(0);
    expect((await api('GET', `/v1/ideas/${id}`, { token: 'read' })).status).toBe(200);
    expect((await api('POST', `/v1/ideas/${id}/versions`, { ...w, body: { problem: 'Swaps take a median of two days to approve.' } })).status).toBe(201);
    expect((await api('PUT', `/v1/ideas/${id}/versions/2`, { ...w, body: { title: 'Swapboard 3' } })).status).toBe(201);
    expect((await api<unknown[]>('GET', `/v1/ideas/${id}/versions`, { token: 'read' })).body).toHaveLength(3);
    const v2 = await api<{ readiness: { ready: boolean } }>('GET', `/v1/ideas/${id}/versions/2`, { token: 'read' });
    expect(v2.body.readiness.ready).toBe(true);
    expect((await api('GET', `/v1/ideas/${id}/diff?from=1&to=3`, { token: 'read' })).status).toBe(200);
    expect((await api<{ id: string }>('POST', `/v1/ideas/${id}/evidence`, { ...w, body: { claim: '31 swaps in March', source: 'ward log', kind: 'metric', date: '2026-03-31' } })).body.id).toBe('E1');
    expect((await api<unknown[]>('GET', `/v1/ideas/${id}/evidence`, { token: 'read' })).body).toHaveLength(1);

    const panel = projectConfigFrom(PANEL_DEMO);
    delete panel.idea;
    const run = await api<{ id: string }>('POST', '/v1/runs', { ...w, body: { ...panel, idea_ref: { id, version: 2 } } });
    expect(run.status).toBe(202);
    expect((await api('PUT', `/v1/ideas/${id}/versions/2`, { ...w, body: { title: 'typo' } })).status).toBe(409);
    expect((await api('POST', `/v1/ideas/${id}/versions`, { ...w, body: { title: 'typo', base_version: 2 } })).status).toBe(409);
    expect((await terminal(run.body.id)).status).toBe('done');
    // The panel's ITERATE handed on as a build of its experiment (capped at one call), and the handoff's errors.
    const build = projectConfigFrom(BUILD_DEMO, { budget: { max_calls: 1 } });
    delete build.objective;
    delete build.requirements;
    const handed = await api<{ id: string; handed_off_from: { recommendation: string } }>('POST', `/v1/ideas/${id}/handoff`, { ...w, body: { panel_run_id: run.body.id, build } });
    expect(handed.status).toBe(201);
    expect(handed.body.handed_off_from.recommendation).toBe('ITERATE');
    expect((await api<{ handed_off_from: unknown }>('GET', `/v1/runs/${handed.body.id}`, { token: 'read' })).body.handed_off_from).toMatchObject({ idea_id: id, version: 2 });
    expect((await api('POST', `/v1/ideas/${id}/handoff`, { ...w, body: { build: { ...build, objective: 'mine' } } })).status).toBe(400);
    expect((await api('POST', '/v1/ideas/idea_0000000000/handoff', { ...w, body: { build } })).status).toBe(404);
    await terminal(handed.body.id);

    // An unready version: the panel is refused with every failing check; the errors of each route.
    const draft = await api<{ id: string }>('POST', '/v1/ideas', { ...w, body: { title: 'TBD', problem: '', target_user: 'x', solution: '...' } });
    ideas.unpanelled = draft.body.id;
    expect((await api<{ error: string }>('POST', '/v1/runs', { ...w, body: { ...panel, idea_ref: { id: draft.body.id, version: 1 } } })).body.error).toBe('idea_not_ready');
    expect((await api<{ error: string }>('POST', `/v1/ideas/${draft.body.id}/handoff`, { ...w, body: { build } })).body.error).toBe('no_done_panel');
    expect((await api('POST', '/v1/ideas', { ...w, body: { title: 1 } })).status).toBe(400);
    expect((await api('POST', '/v1/ideas', { ...w, body: `{"title": "${'x'.repeat(1_100_000)}"}`, contentType: 'application/json' })).status).toBe(413);
    expect((await api('POST', `/v1/ideas/${id}/versions`, { ...w, body: { evidence: ['E9'] } })).status).toBe(400);
    expect((await api('PUT', `/v1/ideas/${id}/versions/zero`, { ...w, body: { title: 'x' } })).status).toBe(400);
    expect((await api('POST', `/v1/ideas/${id}/evidence`, { ...w, body: { claim: 'x' } })).status).toBe(400);
    expect((await api('GET', `/v1/ideas/${id}/versions/0`, { token: 'read' })).status).toBe(400);
    expect((await api('GET', `/v1/ideas/${id}/diff?from=1`, { token: 'read' })).status).toBe(400);
    for (const route of ['', '/versions', '/versions/1', '/diff?from=1&to=2', '/evidence']) expect((await api('GET', `/v1/ideas/idea_0000000000${route}`, { token: 'read' })).status).toBe(404);
    expect((await api('POST', '/v1/ideas/idea_0000000000/versions', { ...w, body: { title: 'x' } })).status).toBe(404);
    expect((await api('PUT', '/v1/ideas/idea_0000000000/versions/1', { ...w, body: { title: 'x' } })).status).toBe(404);
    expect((await api('POST', '/v1/ideas/idea_0000000000/evidence', { ...w, body: { claim: 'c', source: 's', kind: 'metric', date: '2026-01-01' } })).status).toBe(404);
    // A read token reads ideas and writes none.
    for (const [method, route] of [['POST', '/v1/ideas'], ['POST', `/v1/ideas/${id}/versions`], ['PUT', `/v1/ideas/${id}/versions/1`], ['POST', `/v1/ideas/${id}/evidence`], ['POST', `/v1/ideas/${id}/handoff`]]) {
      expect((await api(method, route, { token: 'read', body: {} })).status).toBe(403);
    }
    for (const [method, route] of [['GET', '/v1/ideas'], ['POST', '/v1/ideas']]) expect((await api(method, route, { token: 'none' })).status).toBe(401);
  });

  it('experiments: preregistered, listed, read, never edited (409s), run to its decision, not run twice, reported; an idea\'s recommended experiment drafted, and refused without a done panel', async () => {
    const file = projectConfigFrom(path.join(EXPERIMENT_EXAMPLE, 'experiment-pass.yaml'), { repo: experimentRepo });
    const created = await api<Experiment>('POST', '/v1/experiments', { body: file });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'locked', decision: null });
    const id = created.body.id;
    expect((await api<{ items: Experiment[] }>('GET', '/v1/experiments', { token: 'read' })).body.items.map((e) => e.id)).toContain(id);
    expect((await api<{ items: Experiment[] }>('GET', '/v1/experiments?status=locked&project=experiment-backtest', { token: 'read' })).body.items.map((e) => e.id)).toContain(id);
    expect((await api('GET', '/v1/experiments?status=finished', { token: 'read' })).status).toBe(400);
    const detail = await api<Experiment>('GET', `/v1/experiments/${id}`, { token: 'read' });
    expect(detail.body.prereg_hash).toBe(created.body.prereg_hash);
    expect((await api('GET', '/v1/experiments/exp_nope', { token: 'read' })).status).toBe(404);

    // Never edited: PATCH and PUT answer 409, naming the field, and the hash stays.
    const changed = { ...detail.body.preregistration, failure_criteria: [{ expr: 'sharpe_oos < -1' }] };
    expect((await api<{ error: string }>('PATCH', `/v1/experiments/${id}`, { body: { preregistration: changed } })).body).toMatchObject({ error: 'experiment_locked' });
    expect((await api('PUT', `/v1/experiments/${id}`, { body: { ...file, preregistration: changed } })).status).toBe(409);

    // Run (202), followed until the experiment is decided by code; a second run is refused.
    const started = await api<{ experiment_id: string; run_id: string }>('POST', `/v1/experiments/${id}/run`);
    expect(started.status).toBe(202);
    expect(started.body.experiment_id).toBe(id);
    expect(await terminal(started.body.run_id, 200_000)).toMatchObject({ status: 'done' });
    const decided = await waitFor(`experiment ${id} to be decided`, async () => {
      const { body } = await api<Experiment>('GET', `/v1/experiments/${id}`, { token: 'read' });
      return body.status === 'decided' ? body : undefined;
    });
    expect(decided).toMatchObject({ decision: 'PASS', run_id: started.body.run_id, prereg_hash: created.body.prereg_hash });
    expect((await api('POST', `/v1/experiments/${id}/run`)).status).toBe(409);
    expect((await api('POST', '/v1/experiments/exp_nope/run')).status).toBe(404);
    const report = await api('GET', `/v1/experiments/${id}/report`, { token: 'read' });
    expect(report.status).toBe(200);
    expect(report.text).toContain('PASS');

    // The ideas test's idea has a done panel (ITERATE with a recommended experiment): drafted, 201; an idea without one, 409.
    const request = {
      repo: experimentRepo,
      domain: 'trading',
      providers: {
        replay_x: { type: 'replay', cassette: PROPOSER_CASSETTE },
        replay_a: { type: 'replay', cassette: path.join(EXPERIMENT_EXAMPLE, 'cassette-pass.yaml') },
        replay_b: { type: 'replay', cassette: path.join(EXPERIMENT_EXAMPLE, 'cassette-pass.yaml') },
      },
      proposer: { provider: 'replay_x', model: 'claude-sonnet-4-5' },
      interpreter: { provider: 'replay_a', model: 'claude-sonnet-4-5' },
      critic: { provider: 'replay_b', model: 'gpt-5' },
    };
    expect(ideas.panelled && ideas.unpanelled).toBeTruthy();
    const drafted = await api<{ experiment_id: string; run_id: string }>('POST', `/v1/ideas/${ideas.panelled}/experiment`, { token: 'ideas', body: request });
    expect(drafted.status).toBe(201);
    expect((await api<Experiment>('GET', `/v1/experiments/${drafted.body.experiment_id}`, { token: 'read' })).body).toMatchObject({ status: 'draft', run_id: drafted.body.run_id });
    expect((await api<{ error: string }>('POST', `/v1/ideas/${ideas.unpanelled}/experiment`, { token: 'ideas', body: request })).status).toBe(409);
    expect((await api('POST', `/v1/ideas/${ideas.panelled}/experiment`, { token: 'ideas', body: { ...request, preregistration: {} } })).status).toBe(400);
    // The draft's run waits at its gate; cancelled, so nothing is left running.
    await waitFor(`run ${drafted.body.run_id} to wait at its gate`, async () => ((await api<Run>('GET', `/v1/runs/${drafted.body.run_id}`, { token: 'read' })).body.status === 'awaiting_approval' ? true : undefined), 60_000);
    expect((await api('POST', `/v1/runs/${drafted.body.run_id}/cancel`)).status).toBe(202);
    await terminal(drafted.body.run_id);
  });

  it('a cancelled run, and the 409s of what has ended', async () => {
    const id = (runs.cancelled = await submit(projectConfigFrom(BUILD_DEMO)));
    expect((await api('POST', `/v1/runs/${id}/cancel`)).status).toBe(202);
    expect((await terminal(id)).status).toBe('cancelled');
    expect((await api('GET', `/v1/runs/${id}/events`, { token: 'read' })).status).toBe(200);
    expect((await api('POST', `/v1/runs/${id}/cancel`)).status).toBe(409);
    expect((await api('POST', `/v1/runs/${runs.build}/resume`)).status).toBe(409);
    expect((await api('POST', `/v1/runs/${runs.build}/appeal`, { body: APPEAL })).status).toBe(409);
  });

  it('the bias audit over the recorded runs: every project, one project, and a bad parameter', async () => {
    const all = await api<{ flags: unknown[]; critics: { subject: string }[]; judges: unknown[]; scope: { runs: number } }>('GET', '/v1/audit/bias', { token: 'read' });
    expect(all.status).toBe(200);
    expect(all.body.scope.runs).toBeGreaterThan(0);
    // The build demo's critic and the panel demo's five judges are on record.
    expect(all.body.critics.length).toBeGreaterThan(0);
    expect(all.body.judges.length).toBeGreaterThan(0);
    const one = await api<{ scope: { project: string | null } }>('GET', '/v1/audit/bias?project=dd-demo', { token: 'read' });
    expect(one.body.scope.project).toBe('dd-demo');
    expect((await api('GET', '/v1/audit/bias?projct=x', { token: 'read' })).status).toBe(400);
  });

  it('evals: started (the demo as one task with a hidden test), listed, read and plotted once scored; a bad request and an unknown eval refused', async () => {
    const demo = projectConfigFrom(BUILD_DEMO) as Record<string, unknown> & { objective: string; requirements: string[] };
    const { objective, requirements, project: _p, ...config } = demo;
    const hidden = '# eval-hidden: max-drawdown\nfrom dd import max_drawdown\n\n\ndef test_hidden_ends_at_trough():\n    assert max_drawdown([100.0, 120.0, 90.0, 60.0]) == 0.5\n';
    const body = {
      suite: 'openapi',
      score: 'hidden_tests',
      baselines: false,
      budget: { max_tokens: 150_000 },
      configs: [{ name: 'demo', project: config }],
      tasks: [{ id: 'max-drawdown', difficulty: 'easy', objective, requirements, test_command: 'python -m pytest -q', hidden_command: 'python -m pytest -q .eval_hidden', hidden: [{ path: 'test_dd_hidden.py', content: hidden }] }],
    };
    const created = await api<{ id: string; progress: { total: number } }>('POST', '/v1/evals', { body });
    expect(created.status).toBe(201);
    expect(created.body.progress.total).toBe(1);
    const id = created.body.id;
    const done = await waitFor(`eval ${id} to be scored`, async () => {
      const { body: e } = await api<{ status: string; cells: { passed: boolean | null; reason: string | null }[] }>('GET', `/v1/evals/${id}`, { token: 'read' });
      return e.status === 'done' ? e : undefined;
    }, 120_000, 250);
    // The demo's engineer fixes the off-by-one, so the hidden test passes.
    expect(done.cells).toEqual([expect.objectContaining({ passed: true, reason: expect.stringMatching(/^hidden tests: 1 passed/) })]);
    expect((await api<{ evals: { id: string }[] }>('GET', '/v1/evals?suite=openapi', { token: 'read' })).body.evals.map((e) => e.id)).toEqual([id]);
    const plot = await api('GET', `/v1/evals/${id}/plot.svg`, { token: 'read' });
    expect(plot.status).toBe(200);
    expect((await api('GET', '/v1/evals/eval_0000000000', { token: 'read' })).status).toBe(404);
    expect((await api('POST', '/v1/evals', { body: { ...body, budget: undefined } })).status).toBe(400);
  });

  it('the error answers: 400s, 404s, 413, 415', async () => {
    const expectStatus = async (reply: Promise<CheckedReply>, status: number) => expect((await reply).status).toBe(status);
    const r = runs.build;
    await expectStatus(api('POST', '/v1/runs', { body: { project: 'x' } }), 400);
    await expectStatus(api('POST', '/v1/runs', { body: '{"project": ', contentType: 'application/json' }), 400);
    await expectStatus(api('POST', '/v1/runs', { body: `{"objective": "${'x'.repeat(1_100_000)}"}`, contentType: 'application/json' }), 413);
    await expectStatus(api('POST', '/v1/runs', { body: 'project: x', contentType: 'application/octet-stream' }), 415);
    await expectStatus(api('GET', '/v1/runs?limit=0', { token: 'read' }), 400);
    await expectStatus(api('GET', '/v1/runs?status=finished', { token: 'read' }), 400);
    await expectStatus(api('GET', `/v1/runs/${r}/calls?failed=maybe`, { token: 'read' }), 400);
    await expectStatus(api('GET', `/v1/runs/${r}/events?after=soon`, { token: 'read' }), 400);
    await expectStatus(api('GET', `/v1/runs/${r}/events?after=100000`, { token: 'read' }), 400);
    await expectStatus(api('GET', '/v1/runs?workflow=debate', { token: 'read' }), 400);
    for (const route of ['', '/report', '/calls', '/calls/nope', '/events', '/records', '/diff', '/files?path=dd.py', '/verify', '/export']) await expectStatus(api('GET', `/v1/runs/run_nope${route}`, { token: 'read' }), 404);
    await expectStatus(api('GET', `/v1/runs/${r}/calls/nope`, { token: 'read' }), 404);
    for (const route of ['/cancel', '/resume']) await expectStatus(api('POST', `/v1/runs/run_nope${route}`), 404);
    await expectStatus(api('POST', '/v1/runs/run_nope/fork', { body: { from: 'CRITIQUE' } }), 404);
    await expectStatus(api('POST', '/v1/runs/run_nope/appeal', { body: APPEAL }), 404);
    // Idempotency-Key: the same key again with another body is a 422; a malformed key a 400.
    const key = { 'idempotency-key': `openapi-${Date.now()}` };
    const first = await api<{ id: string }>('POST', '/v1/runs', { body: projectConfigFrom(BUILD_DEMO), headers: key });
    expect(first.status).toBe(202);
    await expectStatus(api('POST', '/v1/runs', { body: projectConfigFrom(BUILD_DEMO, { project: 'another body' }), headers: key }), 422);
    await expectStatus(api('POST', '/v1/runs', { body: projectConfigFrom(BUILD_DEMO), headers: { 'idempotency-key': 'has spaces' } }), 400);
    await terminal(first.body.id);
  });

  it('the doors: 401 without a token, 403 for a read token on a write, 429 past the write quota', async () => {
    for (const [method, route] of [
      ['GET', '/v1/runs'],
      ['GET', `/v1/runs/${runs.build}`],
      ['GET', `/v1/runs/${runs.build}/events`],
      ['GET', `/v1/runs/${runs.build}/records`],
      ['GET', `/v1/runs/${runs.build}/diff`],
      ['GET', `/v1/runs/${runs.build}/files?path=dd.py`],
      ['GET', '/metrics'],
      ['GET', '/docs/openapi.json'],
      ['POST', '/v1/runs'],
    ]) {
      expect((await api(method, route, { token: 'none' })).status).toBe(401);
    }
    for (const route of ['/v1/runs', `/v1/runs/${runs.build}/cancel`, `/v1/runs/${runs.build}/resume`, `/v1/runs/${runs.panel}/appeal`]) {
      expect((await api('POST', route, { token: 'read', body: {} })).status).toBe(403);
    }
    const statuses: number[] = [];
    for (let i = 0; i <= WRITES_PER_MIN && !statuses.includes(429); i++) statuses.push((await api('POST', '/v1/runs/run_nope/cancel', { token: 'burst' })).status);
    expect(statuses.at(-1)).toBe(429);
    for (const route of ['/v1/runs', `/v1/runs/${runs.halted}/resume`, `/v1/runs/${runs.panel}/appeal`]) {
      expect((await api('POST', route, { token: 'burst', body: {} })).status).toBe(429);
    }
  });

  it('usage by team and project: today, since a date, one project; a bad parameter', async () => {
    const today = await api<{ since: string; rows: { team: string; project: string; calls: number }[] }>('GET', '/v1/usage', { token: 'read' });
    expect(today.status).toBe(200);
    // The runs above are the team default's (tokens without a team); the demo's calls are on record.
    expect(today.body.rows.find((r) => r.team === 'default' && r.project === 'dd-demo')?.calls).toBeGreaterThan(0);
    expect((await api('GET', `/v1/usage?since=2026-01-01&project=dd-demo&team=default`, { token: 'read' })).status).toBe(200);
    expect((await api('GET', '/v1/usage?since=tomorrow', { token: 'read' })).status).toBe(400);
  });

  it('every reply matched the document, and every documented operation was exercised', () => {
    expect(checker.failures).toEqual([]);
    const exercised = checker.exercised();
    expect(checker.operations().filter((op) => !exercised.has(op))).toEqual([]);
  });
});
