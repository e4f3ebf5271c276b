import path from 'node:path';
import { JUDGES, TERMINAL_EVENT_TYPES, type PanelCompletion } from '@roundtable/contracts';
import { getJson, Pipeline, projectConfigFrom, startPipeline, submitRun, waitFor, waitForTerminal } from '@roundtable/testing';
import { EventSourceFollower, FollowerNote, READY_STATE } from './support/event-source-follower';

jest.setTimeout(90_000);

const REPO = path.resolve(__dirname, '../..');
const DEMO = path.join(REPO, 'examples/panel-demo/project.yaml');
/** Each provider-worker process takes at most this many replay calls at once. */
const CONCURRENCY_PER_WORKER = 3;
const RETRY_MS = 300;
const APPEAL = {
  evidence: ['RLDatix partner programme letter: Swapboard accepted as an integration partner with read-write roster API access from Q3'],
  judges: ['engineer', 'pm'],
};

const isTerminal = (type: string) => (TERMINAL_EVENT_TYPES as readonly string[]).includes(type);
const gotEvent = (type: string) => (notes: FollowerNote[]) => notes.some((n) => n.kind === 'event' && n.type === type);

async function post(api: string, route: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${api}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

interface CallRow {
  seq: number;
  role: string;
  stage: string;
  label: string;
  status: string;
  valid: boolean | null;
  started_at: Date;
  finished_at: Date;
}

/**
 * The panel workflow end to end on the real engine: api, orchestrator, test-runner and TWO
 * provider-worker processes, each started from its built bundle, on a fresh database and queue
 * prefix. Everything is observed from outside: the API, the SSE stream, and the audit rows.
 */
describe('the panel workflow through real services', () => {
  let pipeline: Pipeline;

  beforeAll(async () => {
    pipeline = await startPipeline({
      providerWorkers: 2,
      env: { PROVIDER_CONCURRENCY: String(CONCURRENCY_PER_WORKER), SSE_RETRY_MS: String(RETRY_MS) },
    });
  });

  afterAll(async () => {
    await pipeline?.stop();
  });

  const callsOf = (id: string) =>
    pipeline.sql<CallRow>(`SELECT seq, role, stage, label, status, valid, started_at, finished_at FROM agent_calls WHERE run_id = $1 ORDER BY seq`, [id]);

  it('runs the demo through the API and the SSE stream, reports it, and takes exactly one appeal', async () => {
    let es: EventSourceFollower | undefined;
    let appealEs: EventSourceFollower | undefined;
    try {
      const res = await submitRun(pipeline.api, projectConfigFrom(DEMO));
      expect(res.status).toBe(202);
      const id = res.body.id as string;
      es = new EventSourceFollower(`${pipeline.api}/v1/runs/${id}/events`);
      await es.waitFor('the terminal event', (notes) => notes.some((n) => n.kind === 'event' && isTerminal(n.type)), 60_000);

      const events = es.events();
      const of = (type: string) => events.filter((e) => e.type === type);
      const log = await pipeline.sql<{ sequence: number; type: string }>(`SELECT sequence, type FROM run_events WHERE run_id = $1 ORDER BY sequence`, [id]);
      expect(events.map((e) => e.type)).toEqual(log.map((e) => e.type));
      expect(events.map((e) => e.sequence)).toEqual(log.map((_, i) => i + 1));

      expect(of('judges_dispatched').map((e) => e.payload)).toEqual([{ judges: [...JUDGES] }]);
      const verdicts = of('judge_verdict_completed');
      expect(verdicts).toHaveLength(5);
      expect(verdicts.map((e) => e.payload.judge).sort()).toEqual([...JUDGES].sort());
      expect(verdicts.map((e) => e.payload.completed)).toEqual([1, 2, 3, 4, 5]);
      expect(verdicts.every((e) => e.payload.total === 5)).toBe(true);
      const messages = of('debate_message_published');
      const rounds = 3; // the demo leaves max_debate_rounds at its default
      expect(messages).toHaveLength(5 * rounds);
      expect(messages.map((e) => e.payload.speaker)).toEqual([...JUDGES, ...JUDGES, ...JUDGES]);
      expect(of('revote_started').map((e) => e.payload)).toEqual([{ baseline: { vc: 5, engineer: 6, pm: 6, customer: 7, competitor: 4 } }]);
      const revotes = of('revote_judge_completed');
      expect(revotes).toHaveLength(5);
      expect(revotes.find((e) => e.payload.judge === 'vc')?.payload).toMatchObject({ previous: 5, score: 6, delta: 1, change_reason: expect.stringContaining('D6') });
      expect(of('moderator_completed')).toHaveLength(1);
      const done = events.at(-1)!;
      expect(done.type).toBe('run_completed');
      const panel = done.payload.panel as PanelCompletion;
      expect(done.payload).toMatchObject({ status: 'done', verdict: 'ITERATE', confidence: 0.65 });
      expect(panel.synthesis).toMatchObject({ overall_recommendation: 'ITERATE', recommended_experiment: expect.stringContaining('four-week paid pilot') });
      expect(panel.quality).toMatchObject({ status: 'ok', weak_judges: [] });
      expect(panel.quality!.figures.max_jaccard).toBeLessThan(0.85);
      expect(panel.scores).toEqual({ vc: 6, engineer: 6, pm: 7, customer: 7, competitor: 4 });
      expect(of('run_metrics')).toHaveLength(1);
      expect((of('run_metrics')[0].payload.calls as unknown[]).length).toBe(26);

      // The API answers for the panel run as for any run, with a panel block.
      const run = (await getJson(pipeline.api, `/v1/runs/${id}`)).body;
      expect(run).toMatchObject({ workflow: 'panel', status: 'done', stage: 'DONE', verdict: 'ITERATE', confidence: 0.65, halt_reason: null });
      expect(run.panel).toMatchObject({ recommendation: 'ITERATE', quality: 'ok', debate_messages: 15, appeal: null, can_appeal: true });
      expect(run.usage).toMatchObject({ calls: 26 });
      const calls = await callsOf(id);
      expect(calls).toHaveLength(26);
      expect(calls.every((c) => c.status === 'completed' && c.valid === true)).toBe(true);
      const report = await fetch(`${pipeline.api}/v1/runs/${id}/report`);
      expect(report.status).toBe(200);
      const text = await report.text();
      expect(text).toContain('Recommendation: ITERATE (confidence 0.65)');
      expect(text).toContain('- vc (V1, replay/claude-sonnet-4-5): 5/10 (mixed) → 6 after the re-vote (+1)');
      expect(text).toContain('15 messages in 3 rounds of 3');
      expect(text).toContain('26 agent calls');

      // A bad appeal names its field; nothing is queued for it.
      const noEvidence = await post(pipeline.api, `/v1/runs/${id}/appeal`, { evidence: [], judges: ['vc'] });
      expect(noEvidence).toMatchObject({ status: 400, body: { error: 'invalid_appeal_request', message: 'evidence must hold at least one item' } });
      const badJudge = await post(pipeline.api, `/v1/runs/${id}/appeal`, { evidence: ['x'], judges: ['critic'] });
      expect(badJudge.status).toBe(400);
      expect(badJudge.body).toMatchObject({
        message: 'judges must name judges: vc, engineer, pm, customer, competitor',
        issues: [{ path: 'judges.0', message: 'judges must name judges: vc, engineer, pm, customer, competitor' }],
      });

      // The appeal: 202, then its events follow on a new subscription after the last sequence seen.
      const last = done.sequence;
      const appealed = await post(pipeline.api, `/v1/runs/${id}/appeal`, APPEAL);
      expect(appealed).toMatchObject({ status: 202, body: { id, requested: 'appeal', judges: APPEAL.judges } });
      appealEs = new EventSourceFollower(`${pipeline.api}/v1/runs/${id}/events?after=${last}`);
      await appealEs.waitFor('appeal_completed', gotEvent('appeal_completed'), 30_000);
      const appealEvents = appealEs.events();
      expect(appealEvents[0].sequence).toBe(last + 1);
      expect(appealEvents.map((e) => e.type)).toEqual([
        'agent_call_queued',
        'agent_call_queued',
        'appeal_started',
        'agent_call_completed',
        'agent_call_completed',
        'appeal_completed',
      ]);
      expect(appealEvents.at(-1)!.payload).toMatchObject({
        judges: ['engineer', 'pm'],
        scores: { engineer: 8, pm: 7 },
        previous: { engineer: 6, pm: 7 },
        change_reasons: { engineer: expect.stringContaining('E1') },
      });
      // appeal_completed ends that stream too; EventSource's reconnect is told 204 (stop).
      await appealEs.waitFor('EventSource to give up after 204', (notes) => notes.some((n) => n.kind === 'error' && n.code === 204), 10_000);
      expect(appealEs.notes.at(-1)?.readyState).toBe(READY_STATE.CLOSED);

      // One appeal per run.
      const again = await post(pipeline.api, `/v1/runs/${id}/appeal`, APPEAL);
      expect(again).toMatchObject({ status: 409, body: { error: 'appeal_used' } });
      const after = (await getJson(pipeline.api, `/v1/runs/${id}`)).body;
      expect(after).toMatchObject({ status: 'done', verdict: 'ITERATE' });
      expect(after.panel).toMatchObject({ appeal: { status: 'completed', judges: ['engineer', 'pm'] }, can_appeal: 'this run has had its one appeal' });
      const appealCalls = (await callsOf(id)).filter((c) => c.stage === 'APPEAL');
      expect(appealCalls.map((c) => `${c.role}:${c.label}`)).toEqual(['engineer:AP1', 'pm:AP2']);
      const appealedReport = await (await fetch(`${pipeline.api}/v1/runs/${id}/report`)).text();
      expect(appealedReport).toContain('- engineer: 6 → 8 (+2): E1 answers my first concern');
    } finally {
      await es?.close();
      await appealEs?.close();
    }
  });

  it('runs the five judges concurrently on two provider-worker processes', async () => {
    const cfg = projectConfigFrom(DEMO, { max_debate_rounds: 1 }) as { providers: Record<string, Record<string, unknown>> };
    // Every replayed reply takes 400 ms, so calls that run at the same time visibly overlap.
    cfg.providers.replay.latency_ms = 400;
    const res = await submitRun(pipeline.api, cfg);
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    const run = await waitForTerminal(pipeline, id, 60_000);
    expect(run).toMatchObject({ status: 'done', verdict: 'ITERATE' });

    const roast = (await callsOf(id)).filter((c) => c.stage === 'ROAST');
    expect(roast.map((c) => c.role)).toEqual([...JUDGES]);
    const spans = roast.map((c) => ({ role: c.role, start: new Date(c.started_at).getTime(), end: new Date(c.finished_at).getTime() }));
    for (const s of spans) expect(s.end - s.start).toBeGreaterThanOrEqual(400);
    // All five were in flight at one moment: the latest start precedes the earliest finish.
    const latestStart = Math.max(...spans.map((s) => s.start));
    const earliestEnd = Math.min(...spans.map((s) => s.end));
    expect(latestStart).toBeLessThan(earliestEnd);
    // Which process ran a call is not recorded on its row; it is implied: one worker runs at most
    // CONCURRENCY_PER_WORKER calls at once, so five at once means both workers were running them.
    const inFlightAt = (t: number) => spans.filter((s) => s.start <= t && t < s.end).length;
    const peak = Math.max(...spans.map((s) => inFlightAt(s.start)));
    expect(peak).toBe(5);
    expect(peak).toBeGreaterThan(CONCURRENCY_PER_WORKER);
    // The debate that follows is one speaker at a time, in fixed order, each after the one before.
    const debate = (await callsOf(id)).filter((c) => c.stage === 'DEBATE');
    expect(debate.map((c) => c.role)).toEqual([...JUDGES]);
    for (let i = 1; i < debate.length; i++) expect(new Date(debate[i].started_at).getTime()).toBeGreaterThanOrEqual(new Date(debate[i - 1].finished_at).getTime());
  });

  it('holds max_calls exactly: four judges fly, the fifth is never queued, the moderator gets its one call', async () => {
    const res = await submitRun(pipeline.api, projectConfigFrom(DEMO, { budget: { max_calls: 4 } }));
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    const run = await waitForTerminal(pipeline, id, 60_000);
    expect(run).toMatchObject({ workflow: 'panel', status: 'halted', stage: 'DONE', caps: expect.objectContaining({ max_calls: 4 }) });
    expect(run.halt_reason).toMatch(/^max_calls reached: 4 of 4 calls/);

    const calls = await callsOf(id);
    expect(calls.map((c) => `${c.stage}:${c.role}`)).toEqual(['ROAST:vc', 'ROAST:engineer', 'ROAST:pm', 'ROAST:customer', 'MODERATE:moderator']);
    expect(calls.filter((c) => c.role === 'moderator')).toHaveLength(1);
    expect(calls.every((c) => c.status === 'completed' && c.valid === true)).toBe(true);
    expect(calls.some((c) => c.role === 'competitor')).toBe(false);

    const events = await pipeline.sql<{ type: string; payload: Record<string, unknown> }>(`SELECT type, payload FROM run_events WHERE run_id = $1 ORDER BY sequence`, [id]);
    expect(events.filter((e) => e.type === 'judges_dispatched').map((e) => e.payload)).toEqual([{ judges: ['vc', 'engineer', 'pm', 'customer'] }]);
    expect(events.filter((e) => e.type === 'agent_call_queued').map((e) => e.payload.role)).toEqual(['vc', 'engineer', 'pm', 'customer', 'moderator']);
    expect(events.find((e) => e.type === 'run_halted')?.payload.reason).toMatch(/max_calls/);
    const done = events.at(-1)!;
    expect(done.type).toBe('run_completed');
    expect(done.payload).toMatchObject({ status: 'halted', panel: expect.objectContaining({ partial: true }) });
    const [{ n }] = await pipeline.sql<{ n: number }>(`SELECT count(*)::int AS n FROM budget_reservations WHERE run_id = $1`, [id]);
    expect(n).toBe(0);
    const report = await (await fetch(`${pipeline.api}/v1/runs/${id}/report`)).text();
    expect(report).toContain('Halt reason: max_calls reached: 4 of 4 calls');
    expect(report).toContain('- competitor: no verdict recorded');
    expect(report).toMatch(/Recommendation: ITERATE \(confidence 0\.65\) — partial synthesis after a halt/);
  });

  it('an appeal the budget refuses leaves the appeal to be asked again, with caps raised', async () => {
    // The run takes 26 or 27 calls; the appeal's two re-scores do not fit under 27.
    const res = await submitRun(pipeline.api, projectConfigFrom(DEMO, { budget: { max_calls: 27 } }));
    const id = res.body.id as string;
    expect(await waitForTerminal(pipeline, id, 60_000)).toMatchObject({ status: 'done', verdict: 'ITERATE' });
    const appliedAppeals = async () =>
      (await pipeline.sql<{ event_key: string }>(`SELECT event_key FROM applied_events WHERE run_id = $1 AND event_key LIKE 'run.appeal:%' ORDER BY created_at`, [id])).map((r) => r.event_key);

    const [{ n: endOfRun }] = await pipeline.sql<{ n: number }>(`SELECT event_seq AS n FROM runs WHERE id = $1`, [id]);
    const first = await post(pipeline.api, `/v1/runs/${id}/appeal`, APPEAL);
    expect(first).toMatchObject({ status: 202, body: { requested: 'appeal' } });
    // Two followers of what the appeal adds from the run's end, as `appeal --follow` and the workbench open them: through the log's end, and plain.
    const follow = (query: string) => fetch(`${pipeline.api}/v1/runs/${id}/events?after=${endOfRun}${query}`).then((r) => r.text());
    const followers = [follow('&through=end'), follow('')];
    await waitFor('the first appeal to be applied', async () => ((await appliedAppeals()).length >= 1 ? true : undefined), 20_000, 50);
    const refused = await pipeline.sql<{ payload: { kind: string; detail: string } }>(
      `SELECT payload FROM run_events WHERE run_id = $1 AND type = 'panel_warning' AND payload->>'kind' = 'appeal_refused'`,
      [id],
    );
    expect(refused).toHaveLength(1);
    // The refusal ends what the appeal began: both streams close after its panel_warning (they would
    // otherwise stay open on heartbeats), and a new request from there is told 204.
    for (const text of await Promise.all(followers)) {
      const types = [...text.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]);
      expect(types.at(-1)).toBe('panel_warning');
    }
    const [{ n: endOfRefusal }] = await pipeline.sql<{ n: number }>(`SELECT event_seq AS n FROM runs WHERE id = $1`, [id]);
    expect((await fetch(`${pipeline.api}/v1/runs/${id}/events?after=${endOfRefusal}&through=end`)).status).toBe(204);
    expect(refused[0].payload.detail).toMatch(/^the appeal does not fit the budget: max_calls .*ask again with caps raised/);
    const refusedRun = (await getJson(pipeline.api, `/v1/runs/${id}`)).body as { panel: unknown; usage: { calls: number } };
    expect(refusedRun.panel).toMatchObject({ appeal: null, can_appeal: true });
    const raised = refusedRun.usage.calls + 2;

    // Asked again with caps raised: a job of its own, the caps first, then the re-scores.
    const again = await post(pipeline.api, `/v1/runs/${id}/appeal`, { ...APPEAL, caps: { max_calls: raised } });
    expect(again).toMatchObject({ status: 202, body: { job_id: expect.stringMatching(/appeal__2$/) } });
    // Asked again, the appeal is pending though the refusal is the log's last event: a follower from there gets its events.
    const secondFollow = await fetch(`${pipeline.api}/v1/runs/${id}/events?after=${endOfRefusal}&through=end`);
    expect(secondFollow.status).toBe(200);
    expect([...(await secondFollow.text()).matchAll(/^event: (\S+)$/gm)].map((m) => m[1]).at(-1)).toBe('appeal_completed');
    await waitFor('the appeal to complete', async () => {
      const run = (await getJson(pipeline.api, `/v1/runs/${id}`)).body as { panel: { appeal: { status: string } | null } };
      return run.panel.appeal?.status === 'completed' ? true : undefined;
    }, 30_000, 100);
    const run = (await getJson(pipeline.api, `/v1/runs/${id}`)).body;
    expect(run).toMatchObject({ status: 'done', caps: expect.objectContaining({ max_calls: raised }) });
    expect((await callsOf(id)).filter((c) => c.stage === 'APPEAL').map((c) => `${c.role}:${c.label}`)).toEqual(['engineer:AP1', 'pm:AP2']);
    const started = await pipeline.sql<{ payload: Record<string, unknown> }>(`SELECT payload FROM run_events WHERE run_id = $1 AND type = 'appeal_started'`, [id]);
    expect(started.map((e) => e.payload.caps)).toEqual([{ max_calls: raised }]);
    // And now it is used.
    expect(await post(pipeline.api, `/v1/runs/${id}/appeal`, APPEAL)).toMatchObject({ status: 409, body: { error: 'appeal_used' } });
    expect(await appliedAppeals()).toHaveLength(2);
  });
});
