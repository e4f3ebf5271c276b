import type { ServerResponse } from 'node:http';
import type { RunEventEnvelope } from '@roundtable/contracts';
import { runCli } from './cli';
import { DEMO_CAPS, DEMO_RUN, demoEvents } from './demo-events.fixture';
import { captureIo, FakeApi, RecordedRequest, sendJson, sseFrame, startFakeApi, startSse } from './fake-api.fixture';

const STREAM_END = new Set(['run_completed', 'run_failed', 'run_cancelled', 'appeal_completed']);

/** The demo run, halted, resumed and done, then appealed: a log with three stream ends. */
function longLog(): RunEventEnvelope[] {
  const demo = demoEvents();
  const at = (i: number) => ({ run_id: DEMO_RUN, sequence: i, at: '2026-01-01T10:01:00.000Z' });
  const done = demo[demo.length - 1];
  const halted = { ...done, payload: { status: 'halted', verdict: null, confidence: null } } as RunEventEnvelope;
  const tail = [
    { ...at(demo.length + 1), type: 'run_resumed', payload: { from: 'SYNTHESIZE' } },
    { ...done, sequence: demo.length + 2 },
    { ...at(demo.length + 3), type: 'appeal_started', payload: { judges: ['vc'], scores: { vc: 4 } } },
    { ...at(demo.length + 4), type: 'appeal_completed', payload: { judges: ['vc'], scores: { vc: 6 } } },
  ] as RunEventEnvelope[];
  return [...demo.slice(0, -1), halted, ...tail];
}

/** As the API streams: after the resume point to the first stream end, and 204 when that was the log's last event. */
function apiOf(events: RunEventEnvelope[]) {
  return (req: RecordedRequest, res: ServerResponse) => {
    const url = new URL(req.url, 'http://x');
    const detail = { id: DEMO_RUN, project: 'dd-demo', workflow: 'build', status: 'done', stage: 'DONE', round: 2, fix_round: 1, verdict: 'ACCEPT', confidence: 0.82, halt_reason: null, usage: { calls: 8, failed_calls: 0, input_tokens: 1, output_tokens: 1, tokens: 2, cost_usd: 0.1, seconds: 49 }, caps: DEMO_CAPS };
    if (url.pathname === `/v1/runs/${DEMO_RUN}`) return sendJson(res, 200, detail);
    if (url.pathname !== `/v1/runs/${DEMO_RUN}/events`) return sendJson(res, 404, { error: 'run_not_found', message: 'no run' });
    const after = Number(req.headers['last-event-id'] ?? 0);
    const last = events[events.length - 1];
    if (after === last.sequence) {
      res.writeHead(204);
      return res.end();
    }
    const rest = events.filter((e) => e.sequence > after);
    const end = rest.findIndex((e) => STREAM_END.has(e.type));
    startSse(res);
    res.end(rest.slice(0, end === -1 ? undefined : end + 1).map(sseFrame).join(''));
  };
}

describe('following through a log with more than one stream end', () => {
  let api: FakeApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  it("events --after the run's end prints the appeal's events and ends without reporting a dropped stream", async () => {
    const events = longLog();
    api = await startFakeApi(apiOf(events));
    const out = captureIo();
    const after = events.length - 2;
    expect(await runCli(['events', DEMO_RUN, '--after', String(after), '--api', api.url], out.io)).toBe(0);
    expect(out.stdout().trimEnd().split('\n').map((l) => l.split(' ').slice(0, 2).join(' '))).toEqual([`${after + 1} appeal_started`, `${after + 2} appeal_completed`]);
    expect(out.stderr()).toBe('');
  });

  it('watch draws the whole log, past the halt and the run_completed before the appeal, and exits as the run ended', async () => {
    const events = longLog();
    api = await startFakeApi(apiOf(events));
    const out = captureIo();
    expect(await runCli(['watch', DEMO_RUN, '--api', api.url], out.io)).toBe(0);
    expect(out.stdout()).toContain('[HALTED]');
    expect(out.stdout()).toMatch(/\[APPEAL\] done/);
    expect(out.stderr()).toBe('');
    // Each request resumed after the last sequence the previous one saw; the last was answered 204.
    const resumes = api.requests.filter((r) => r.url.endsWith('/events')).map((r) => r.headers['last-event-id'] ?? '0');
    expect(resumes).toEqual(['0', String(events.length - 4), String(events.length - 2), String(events.length)]);
  });

  describe('a refused appeal: run_completed, then panel_warning, then budget_warning (issue 22)', () => {
    /** The demo run done, then an appeal the budget refused: its panel_warning and the budget_warning its raised caps brought. */
    function refusedLog(): RunEventEnvelope[] {
      const demo = demoEvents();
      const at = (i: number) => ({ run_id: DEMO_RUN, sequence: i, at: '2026-01-01T10:01:00.000Z' });
      return [
        ...demo,
        { ...at(demo.length + 1), type: 'panel_warning', payload: { kind: 'appeal_refused', detail: 'the appeal does not fit the budget', judges: ['vc'] } },
        { ...at(demo.length + 2), type: 'budget_warning', payload: { cap: 'max_calls', used: 9, limit: 10 } },
      ] as RunEventEnvelope[];
    }

    it('events --after the run_completed prints both warnings and ends without reporting a dropped stream', async () => {
      const events = refusedLog();
      api = await startFakeApi(apiOf(events));
      const out = captureIo();
      const after = events.length - 2;
      expect(await runCli(['events', DEMO_RUN, '--after', String(after), '--api', api.url], out.io)).toBe(0);
      expect(out.stdout().trimEnd().split('\n').map((l) => l.split(' ').slice(0, 2).join(' '))).toEqual([`${after + 1} panel_warning`, `${after + 2} budget_warning`]);
      expect(out.stderr()).toBe('');
    });

    it('a retried appeal --follow finds the log end and posts', async () => {
      const events = refusedLog();
      let posted = false;
      const inner = apiOf(events);
      api = await startFakeApi((req, res) => {
        if (req.method === 'POST' && req.url === `/v1/runs/${DEMO_RUN}/appeal`) {
          posted = true;
          return sendJson(res, 202, { run_id: DEMO_RUN, status: 'done' });
        }
        return inner(req, res);
      });
      const out = captureIo();
      expect(await runCli(['appeal', DEMO_RUN, '--evidence', 'new data', '--judge', 'vc', '--follow', '--api', api.url], out.io)).toBe(0);
      expect(posted).toBe(true);
      expect(out.stderr()).toBe('');
    });
  });
});
