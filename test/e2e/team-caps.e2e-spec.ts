import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getJson, Pipeline, postJson, projectConfigFrom, startPipeline, submitRun, waitFor, waitForTerminal } from '@roundtable/testing';

jest.setTimeout(120_000);

const REPO = path.resolve(__dirname, '../..');
const DEMO = path.join(REPO, 'examples/dd-demo/project.yaml');
const CASSETTE = path.join(REPO, 'test/fixtures/budget-halt/cassette.yaml');
const TEST_POLICY = path.join(REPO, 'test/fixtures/policy/test-policy.yaml');

/** The team every run of an open api belongs to (API_TOKENS without a team). */
const TEAM = 'default';
/** A few calls for the team per UTC day: fewer than one demo run needs, so two runs of it race for them. */
const TEAM_CALLS = 3;
const REASON = `teams.${TEAM}.max_calls_per_day reached: ${TEAM_CALLS} of ${TEAM_CALLS} calls used or in flight today (team ${TEAM}, all runs)`;

/**
 * Caps across runs (issue 26) with the services as separate processes: the operator's policy
 * caps the team's calls per day; two runs of that team are submitted at once on the replay
 * provider. The rows say the team's cap held across both (the orchestrator checks it in each
 * step under the team's lock), and a run it stopped halts with the team cap's reason — which
 * neither a resume's caps nor a project file's budget can lift.
 */
describe('a team’s cap across runs: two runs of one team racing (real services)', () => {
  let pipeline: Pipeline;
  let tmp: string;

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(tmpdir(), 'rt-e2e-caps-'));
    // The suite's policy (its relative roots made absolute), with the team's cap added.
    const policy = readFileSync(TEST_POLICY, 'utf8').replaceAll('../../..', REPO);
    const policyFile = path.join(tmp, 'policy.yaml');
    writeFileSync(policyFile, `${policy}\nbudgets:\n  teams:\n    ${TEAM}: { max_calls_per_day: ${TEAM_CALLS} }\n`);
    pipeline = await startPipeline({ providerQueues: 'replay', env: { ROUNDTABLE_POLICY: policyFile } });
  });

  afterAll(async () => {
    await pipeline?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  const callsOf = async (ids: string[]) =>
    pipeline.sql<{ run_id: string; role: string; label: string }>(`SELECT run_id, role, label FROM agent_calls WHERE run_id = ANY($1) ORDER BY created_at`, [ids]);

  it('recorded calls across both runs never pass the team’s cap; a run it stops halts with the team cap’s reason, and a resume cannot lift it', async () => {
    // The project file asks for far more: a request, never a policy.
    const config = projectConfigFrom(DEMO, { budget: { max_calls: 40 }, providers: { replay: { type: 'replay', cassette: CASSETTE } } });
    const submitted = await Promise.all([submitRun(pipeline.api, config), submitRun(pipeline.api, config)]);
    expect(submitted.map((r) => r.status)).toEqual([202, 202]);
    const ids = submitted.map((r) => r.body.id as string);

    const runs = await Promise.all(ids.map((id) => waitForTerminal(pipeline, id, 90_000)));
    const calls = await callsOf(ids);
    expect(calls.length).toBeLessThanOrEqual(TEAM_CALLS);
    expect(calls.length).toBe(TEAM_CALLS); // the cap is used up, not left unused
    const halted = runs.filter((r) => r.halt_reason === REASON);
    expect(halted.length).toBeGreaterThanOrEqual(1);
    for (const run of halted) expect(run).toMatchObject({ status: 'halted' });

    // The refusal is on record: the decision names the cap, the event says the reason, the close is fact-only (no synthesizer call over the team's cap).
    const stopped = halted[0].id as string;
    const decisions = await pipeline.sql<{ reason: string; refs: string[] }>(`SELECT reason, refs FROM decisions WHERE run_id = $1 AND to_stage = 'HALTED'`, [stopped]);
    expect(decisions).toEqual([{ reason: REASON, refs: [`teams.${TEAM}.max_calls_per_day`] }]);
    const halts = await pipeline.sql<{ payload: { reason: string } }>(`SELECT payload FROM run_events WHERE run_id = $1 AND type = 'run_halted'`, [stopped]);
    expect(halts.map((e) => e.payload.reason)).toEqual([REASON]);
    expect(calls.filter((c) => c.role === 'synthesizer')).toEqual([]);
    const [{ reserved }] = await pipeline.sql<{ reserved: number }>(`SELECT count(*)::int AS reserved FROM budget_reservations WHERE run_id = ANY($1)`, [ids]);
    expect(reserved).toBe(0);

    // A resume raising the run's own caps (and naming the team's) is a request: the run goes again, meets the team's cap, halts with its reason.
    const resumed = await postJson(pipeline.api, `/v1/runs/${stopped}/resume`, { caps: { max_calls: 100 } });
    expect(resumed.status).toBe(202);
    const again = await waitFor(
      `run ${stopped} to halt again after the resume`,
      async () => {
        const events = await pipeline.sql<{ type: string }>(`SELECT type FROM run_events WHERE run_id = $1 AND type IN ('run_resumed', 'run_halted') ORDER BY sequence`, [stopped]);
        const { body } = await getJson(pipeline.api, `/v1/runs/${stopped}`);
        return events.map((e) => e.type).join(',') === 'run_halted,run_resumed,run_halted' && body.status === 'halted' ? body : undefined;
      },
      60_000,
      150,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${pipeline.logs()}`);
    });
    expect(again.halt_reason).toBe(REASON);
    // The orchestrator said at start which caps it enforces.
    expect(pipeline.logs()).toContain(`caps across runs: team ${TEAM}`);
    expect(await callsOf(ids)).toHaveLength(TEAM_CALLS);
  });
});
