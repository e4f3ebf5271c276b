// Records the whole event log of each demo run, as a client of the api reads it, into
// libs/run-view/fixtures/<name>.events.json: the run-view reducer's convergence tests replay
// these logs. Run through tools/record-demo-events.mjs (it builds this file and the services).
//
// Each run goes through the real services as separate processes (startPipeline), on the demos'
// replay cassettes, with `sandbox: process` (the test command as a subprocess: no Docker engine
// needed, and nothing in an event depends on the runner). The log is read from
// GET /v1/runs/:id/events?through=end once the run has ended: the envelopes
// {type, run_id, sequence, payload, created_at} exactly as the stream sends them, in order.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import {
  getJson,
  openSse,
  type Pipeline,
  postJson,
  projectConfigFrom,
  sseEvents,
  startPipeline,
  submitRun,
  waitFor,
  waitForTerminal,
} from '@roundtable/testing';

const REPO = path.resolve(__dirname, '..');
const OUT = path.join(REPO, 'libs/run-view/fixtures');
const DD_DEMO = path.join(REPO, 'examples/dd-demo/project.yaml');
const PANEL_DEMO = path.join(REPO, 'examples/panel-demo/project.yaml');
const HALTING_CASSETTE = path.join(REPO, 'test/fixtures/budget-halt/cassette.yaml');

/** As test/e2e/openapi-replies.e2e-spec.ts appeals: judges the panel demo's cassette has a second reply for. */
const APPEAL = {
  evidence: ['RLDatix partner programme letter: Swapboard accepted as an integration partner with read-write roster API access from Q3'],
  judges: ['engineer', 'pm'],
};

interface Envelope {
  type: string;
  run_id: string;
  sequence: number;
  payload: Record<string, unknown>;
  created_at: string;
}

interface CassetteReply {
  role: string;
  reply: unknown;
  expects?: string[];
}

const say = (line: string) => console.log(`record-demo-events: ${line}`);

function fail(why: string, pipeline?: Pipeline): never {
  throw new Error(pipeline ? `${why}\n${pipeline.logs()}` : why);
}

/** The build demo as the CLI would post it, tests run as a subprocess. */
const buildDemo = (overrides: Record<string, unknown> = {}) => projectConfigFrom(DD_DEMO, { sandbox: 'process', ...overrides });

/**
 * A cassette for a run that halts on max_calls and is resumed to the end (as
 * test/e2e/resume-cancel.e2e-spec.ts builds it): the budget-halt fixture's partial synthesis
 * first (what the synthesizer writes at the halt), then the demo's replies for the rest.
 */
function haltThenResumeCassette(dir: string): string {
  const demo = parseYaml(readFileSync(path.join(REPO, 'examples/dd-demo/cassette.yaml'), 'utf8')) as { replies: CassetteReply[] };
  const halted = parseYaml(readFileSync(HALTING_CASSETTE, 'utf8')) as { replies: CassetteReply[] };
  const partialSynthesis = halted.replies.find((r) => r.role === 'synthesizer');
  if (!partialSynthesis) fail(`${HALTING_CASSETTE} has no synthesizer reply`);
  const file = path.join(dir, 'halt-then-resume.cassette.yaml');
  writeFileSync(file, toYaml({ replies: [partialSynthesis, ...demo.replies] }));
  return file;
}

async function submit(pipeline: Pipeline, config: Record<string, unknown>): Promise<string> {
  const res = await submitRun(pipeline.api, config);
  if (res.status !== 202) fail(`POST /v1/runs answered ${res.status}: ${JSON.stringify(res.body)}`, pipeline);
  return res.body.id as string;
}

async function expectRun(pipeline: Pipeline, id: string, want: Record<string, unknown>, timeoutMs = 120_000): Promise<void> {
  const run = await waitForTerminal(pipeline, id, timeoutMs);
  for (const [k, v] of Object.entries(want)) {
    if (run[k] !== v) fail(`run ${id}: ${k} is ${JSON.stringify(run[k])}, expected ${JSON.stringify(v)}`, pipeline);
  }
}

const eventOf = (pipeline: Pipeline, id: string, type: string) =>
  waitFor(`run ${id}: a ${type} event`, async () => ((await pipeline.sql(`SELECT 1 FROM run_events WHERE run_id = $1 AND type = $2`, [id, type])).length ? true : undefined), 120_000, 100);

/**
 * The whole log through the api's stream, read until it holds every event the database has
 * (a cancelled run's late call may follow its terminal event, so the stream's own end is not waited for).
 */
async function eventLog(pipeline: Pipeline, id: string): Promise<Envelope[]> {
  const [{ n }] = await pipeline.sql<{ n: number }>(`SELECT count(*)::int AS n FROM run_events WHERE run_id = $1`, [id]);
  const conn = await openSse(`${pipeline.api}/v1/runs/${id}/events?through=end`);
  if (conn.status !== 200) fail(`GET /v1/runs/${id}/events answered ${conn.status}: ${conn.body}`, pipeline);
  try {
    await conn.waitFor((f) => f.id === String(n), 30_000);
  } finally {
    conn.close();
  }
  const events = sseEvents<Envelope>(conn.frames).map(({ type, run_id, sequence, payload, created_at }) => ({ type, run_id, sequence, payload, created_at }));
  const gapFree = events.every((e, i) => e.sequence === i + 1 && e.run_id === id);
  if (!gapFree || events.length !== n) fail(`run ${id}: the stream gave ${events.length} events (gap-free: ${gapFree}), the log holds ${n}`, pipeline);
  return events;
}

/**
 * Machine paths (this checkout, the scratch and workspace directories) made placeholders, so a
 * fixture does not depend on where it was recorded: `$REPO`, `$SCRATCH`, `$WORKSPACE`.
 */
function withoutMachinePaths(events: Envelope[], paths: Record<string, string>): Envelope[] {
  let text = JSON.stringify(events);
  for (const [name, dir] of Object.entries(paths).sort(([, a], [, b]) => b.length - a.length)) text = text.split(dir).join(`$${name}`);
  return JSON.parse(text) as Envelope[];
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(path.join(tmpdir(), 'rt-record-'));
  say('starting the services (dist/apps/*)');
  const pipeline = await startPipeline({ providerQueues: 'replay' });
  const recorded: Record<string, string> = {};
  try {
    // Four runs at once: they share nothing but the services, and each is waited for on its own.
    const dd = await submit(pipeline, buildDemo());
    const panel = await submit(pipeline, projectConfigFrom(PANEL_DEMO));
    const halting = await submit(
      pipeline,
      buildDemo({ budget: { max_calls: 4 }, providers: { replay: { type: 'replay', cassette: haltThenResumeCassette(scratch) } } }),
    );
    // Slowed (1.5 s a call) so that the cancel lands while a call is in flight, as a person's would.
    const slow = buildDemo();
    (slow.providers as Record<string, Record<string, unknown>>).replay.latency_ms = 1500;
    const cancelled = await submit(pipeline, slow);

    // Cancelled once two calls are done and the third is in flight: a log with progress before the cancel.
    await waitFor(
      `run ${cancelled}: two calls done and one in flight`,
      async () => {
        const [c] = await pipeline.sql<{ done: number; running: number }>(
          `SELECT count(*) FILTER (WHERE status = 'completed')::int AS done, count(*) FILTER (WHERE status = 'running')::int AS running FROM agent_calls WHERE run_id = $1`,
          [cancelled],
        );
        return c.done >= 2 && c.running > 0 ? true : undefined;
      },
      60_000,
      50,
    );
    const cancel = await postJson(pipeline.api, `/v1/runs/${cancelled}/cancel`);
    if (cancel.status !== 202) fail(`cancel answered ${cancel.status}: ${JSON.stringify(cancel.body)}`, pipeline);

    await expectRun(pipeline, dd, { status: 'done', verdict: 'ACCEPT' });
    recorded['dd-demo'] = dd;

    await expectRun(pipeline, panel, { status: 'done', workflow: 'panel' });
    const appeal = await postJson(pipeline.api, `/v1/runs/${panel}/appeal`, APPEAL);
    if (appeal.status !== 202) fail(`appeal answered ${appeal.status}: ${JSON.stringify(appeal.body)}`, pipeline);
    await eventOf(pipeline, panel, 'appeal_completed');
    recorded['panel-demo-appeal'] = panel;

    await expectRun(pipeline, halting, { status: 'halted' });
    const resume = await postJson(pipeline.api, `/v1/runs/${halting}/resume`, { caps: { max_calls: 20 } });
    if (resume.status !== 202) fail(`resume answered ${resume.status}: ${JSON.stringify(resume.body)}`, pipeline);
    // The run stays `halted` until the orchestrator takes the resume.
    await eventOf(pipeline, halting, 'run_resumed');
    await expectRun(pipeline, halting, { status: 'done', verdict: 'ACCEPT' });
    recorded['budget-halt-resumed'] = halting;

    await expectRun(pipeline, cancelled, { status: 'cancelled' });
    // The call in flight at the cancel still finishes and is recorded: its events are part of the log.
    await waitFor(`run ${cancelled}: no call queued or running`, async () => ((await pipeline.sql(`SELECT 1 FROM agent_calls WHERE run_id = $1 AND status IN ('queued', 'running')`, [cancelled])).length === 0 ? true : undefined), 60_000, 100);
    recorded.cancelled = cancelled;

    mkdirSync(OUT, { recursive: true });
    for (const [name, id] of Object.entries(recorded)) {
      const events = withoutMachinePaths(await eventLog(pipeline, id), { REPO, SCRATCH: scratch, WORKSPACE: pipeline.workspaceRoot });
      const { body: run } = await getJson(pipeline.api, `/v1/runs/${id}`);
      writeFileSync(path.join(OUT, `${name}.events.json`), `${JSON.stringify(events, null, 2)}\n`);
      say(`${name}: run ${id}, ${events.length} events, ${events[0].type} … ${events.at(-1)!.type} (status ${run.status}, verdict ${run.verdict ?? '-'})`);
    }
  } finally {
    await pipeline.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(`record-demo-events failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
