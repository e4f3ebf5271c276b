import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import type { RunEventEnvelope } from '@roundtable/contracts';
import { runCli } from './cli';
import { captureIo, FakeApi, RecordedRequest, sendJson, sseFrame, startFakeApi, startSse } from './fake-api.fixture';

/**
 * `watch` on the recorded logs of a resumed run and of an appealed panel (libs/run-view/fixtures), served as
 * the API serves them: each stream ends at the first stream end after Last-Event-ID, and 204 once nothing
 * follows. GET /v1/runs/:id answers what it answers at the end: the raised caps and every call (issue 22).
 */

const log = (name: string): RunEventEnvelope[] =>
  JSON.parse(readFileSync(path.resolve(__dirname, '../../../libs/run-view/fixtures', `${name}.events.json`), 'utf8'));

const STREAM_END = new Set(['run_completed', 'run_failed', 'run_cancelled', 'appeal_completed']);

/** The caps the API writes on run_created (the recorded log predates them): the demo with max_calls 4. */
const SUBMITTED = { max_rounds: 3, max_fix_rounds: 1, max_calls: 4, max_tokens: 200_000, max_seconds: 900 };
/** GET /v1/runs/:id after the resume raised max_calls to 20. */
const CAPS_NOW = { max_calls: 20, max_tokens: 200_000, max_cost_usd: null, max_seconds: 900, max_rounds: 3, max_fix_rounds: 1, per_provider: {} };

function apiOf(events: RunEventEnvelope[], detail: Record<string, unknown>) {
  const runId = events[0].run_id;
  return (req: RecordedRequest, res: ServerResponse) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === `/v1/runs/${runId}`) return sendJson(res, 200, { id: runId, ...detail });
    if (url.pathname !== `/v1/runs/${runId}/events`) return sendJson(res, 404, { error: 'run_not_found', message: 'no run' });
    const after = Number(req.headers['last-event-id'] ?? 0);
    const rest = events.filter((e) => e.sequence > after);
    if (rest.length === 0) {
      res.writeHead(204);
      return res.end();
    }
    const end = rest.findIndex((e) => STREAM_END.has(e.type));
    startSse(res);
    res.end(rest.slice(0, end === -1 ? undefined : end + 1).map(sseFrame).join(''));
  };
}

const usage = (calls: number) => ({ calls, failed_calls: 0, input_tokens: 1000, output_tokens: 1000, tokens: 2000, cost_usd: null, seconds: 30 });

/** The line right after the first line that starts with `prefix` (non-TTY: the budget line after a stage change). */
const after = (lines: string[], prefix: string): string | undefined => lines[lines.findIndex((l) => l.startsWith(prefix)) + 1];

describe('watch on a resumed run and on an appealed panel (issue 22)', () => {
  let api: FakeApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  async function watch(events: RunEventEnvelope[], detail: Record<string, unknown>): Promise<string[]> {
    api = await startFakeApi(apiOf(events, detail));
    const out = captureIo();
    const code = await runCli(['watch', events[0].run_id, '--api', api.url], out.io);
    expect({ code, stderr: out.stderr() }).toEqual({ code: 0, stderr: '' });
    return out.stdout().trimEnd().split('\n');
  }

  const resumedLog = () => log('budget-halt-resumed').map((e) => (e.type === 'run_created' ? ({ ...e, payload: { ...e.payload, caps: SUBMITTED } } as RunEventEnvelope) : e));
  const buildDone = { project: 'dd-demo', workflow: 'build', status: 'done', stage: 'DONE', verdict: 'ACCEPT', confidence: 0.82, usage: usage(9), caps: CAPS_NOW };

  it('draws the part before the resume against the caps then in force, and the part after against the raised ones', async () => {
    const lines = await watch(resumedLog(), buildDone);
    expect(lines[0]).toBe(`[run ${resumedLog()[0].run_id}] project=dd-demo budget: 4 calls / 200k tok / 900s`);
    expect(after(lines, '-> CRITIQUE: P1 valid')).toMatch(/^ {2}budget: calls 1\/4, /);
    expect(after(lines, '-> IMPLEMENT: resumed where the halt left the run')).toMatch(/^ {2}budget: calls 5\/20, /);
  });

  it("the [HALTED] line counts the calls up to the halt, and the count goes on after the resume (not from 0)", async () => {
    const lines = await watch(resumedLog(), buildDone);
    const halted = lines.find((l) => /^\[HALTED\] \d+ calls?\b/.test(l));
    expect(halted).toMatch(/^\[HALTED\] 5 calls \(the closing call, allowed past the cap\), /);
    expect(after(lines, '-> TEST: I1 files written')).toMatch(/^ {2}budget: calls 6\/20, /);
    // The end of the log: the API's own figures.
    expect(lines.find((l) => l.startsWith('[DONE] '))).toMatch(/^\[DONE\] 9 calls, /);
    expect(lines.filter((l) => / calls?, /.test(l) && /^\[(DONE|HALTED)\]/.test(l))).toHaveLength(2);
  });

  it('a log recorded before run_created carried caps: the counts are right all the same', async () => {
    const lines = await watch(log('budget-halt-resumed'), buildDone);
    expect(lines.find((l) => /^\[HALTED\] \d+ calls?\b/.test(l))).toMatch(/^\[HALTED\] 5 calls, /);
    expect(after(lines, '-> IMPLEMENT: resumed where the halt left the run')).toMatch(/^ {2}budget: calls 5\/20, /);
  });

  it("an appealed panel: [DONE] counts the panel's calls before the appeal's are drawn, not the API's final count", async () => {
    const events = log('panel-demo-appeal');
    const detail = { project: 'panel-demo', workflow: 'panel', status: 'done', stage: 'DONE', verdict: 'ITERATE', confidence: 0.6, usage: usage(28), caps: { ...CAPS_NOW, max_calls: 40 } };
    const lines = await watch(events, detail);
    const done = lines.findIndex((l) => l.startsWith('[DONE] '));
    expect(lines[done]).toMatch(/^\[DONE\] 26 calls, /);
    // The appeal's two calls come after it.
    const appealCalls = lines.slice(done + 1).filter((l) => /^\[APPEAL\] (engineer|pm) /.test(l));
    expect(appealCalls).toHaveLength(2);
  });
});
