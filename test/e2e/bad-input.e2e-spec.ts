import { existsSync, lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { getJson, Pipeline, projectConfigFrom, startPipeline, submitRun, waitForTerminal } from '@roundtable/testing';

jest.setTimeout(60_000);

const REPO = path.resolve(__dirname, '../..');
const DEMO = path.join(REPO, 'examples/dd-demo/project.yaml');
const FIXTURES = path.join(REPO, 'test/fixtures/bad-input');

/** The demo config answered from one of this file's cassettes. */
const configWith = (cassette: string) =>
  projectConfigFrom(DEMO, { providers: { replay: { type: 'replay', cassette: path.join(FIXTURES, cassette) } } });

interface CallRow {
  id: string;
  seq: number;
  role: string;
  label: string;
  attempt: number;
  repair_of: string | null;
  status: string;
  valid: boolean | null;
  error: string | null;
  error_code: string | null;
  messages: { role: string; content: string }[];
}

/** Every file and directory name under `dir`, recursively. */
function namesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((p) => path.basename(p));
}

describe('bad input through the real services: each gives a clear error, nothing else is lost', () => {
  let pipeline: Pipeline;
  const runs: Record<'schemaTwice' | 'escapeRepaired' | 'escapeTwice' | 'symlinkEscape' | 'guard', string> = {} as never;

  beforeAll(async () => {
    pipeline = await startPipeline({ providerQueues: 'replay' });
    // All five runs go in at once and proceed concurrently; each test below waits for its own.
    const submitted = await Promise.all([
      submitRun(pipeline.api, configWith('proposer-schema-twice.cassette.yaml')),
      submitRun(pipeline.api, configWith('engineer-escape-repaired.cassette.yaml')),
      submitRun(pipeline.api, configWith('engineer-escape-twice.cassette.yaml')),
      submitRun(pipeline.api, configWith('engineer-symlink-escape.cassette.yaml')),
      submitRun(pipeline.api, configWith('critic-guard.cassette.yaml')),
    ]);
    for (const s of submitted) expect(s.status).toBe(202);
    [runs.schemaTwice, runs.escapeRepaired, runs.escapeTwice, runs.symlinkEscape, runs.guard] = submitted.map((s) => s.body.id as string);
  });

  afterAll(async () => {
    await pipeline?.stop();
  });

  async function callsOf(id: string): Promise<CallRow[]> {
    return pipeline.sql<CallRow>(
      `SELECT id, seq, role, label, attempt, repair_of, status, valid, error, error_code, messages FROM agent_calls WHERE run_id = $1 ORDER BY seq`,
      [id],
    );
  }

  /** One agent_calls row per LLM request, in the expected order; usage agrees; the event log is gap-free. */
  async function expectAuditTrail(id: string, run: Record<string, unknown>, expected: string[]): Promise<CallRow[]> {
    const calls = await callsOf(id);
    expect(calls.map((c) => `${c.role}:${c.label}:${c.attempt}`)).toEqual(expected);
    expect(calls.map((c) => c.seq)).toEqual(calls.map((_, i) => i + 1));
    expect(calls.every((c) => c.status === 'completed' || c.status === 'failed')).toBe(true);
    expect((run.usage as { calls: number }).calls).toBe(expected.length);
    const events = await pipeline.sql<{ sequence: number; type: string }>(`SELECT sequence, type FROM run_events WHERE run_id = $1 ORDER BY sequence`, [id]);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(events[0].type).toBe('run_created');
    expect(events.at(-1)?.type).toBe('run_completed');
    const [{ reserved }] = await pipeline.sql<{ reserved: number }>(`SELECT count(*)::int AS reserved FROM budget_reservations WHERE run_id = $1`, [id]);
    expect(reserved).toBe(0);
    return calls;
  }

  async function reportOf(id: string): Promise<string> {
    const res = await fetch(`${pipeline.api}/v1/runs/${id}/report`);
    expect(res.status).toBe(200);
    return res.text();
  }

  /** A run's workspace is `<WORKSPACE_ROOT>/<runId>/workspace`. */
  const workspaceOf = (id: string) => path.join(pipeline.workspaceRoot, id, 'workspace');

  function expectNoEscape(id: string): void {
    // `../escape.py` from the run's workspace would land in `<root>/<runId>`; look there, in the
    // root, one level above the root, and anywhere below the root.
    expect(existsSync(path.join(pipeline.workspaceRoot, id, 'escape.py'))).toBe(false);
    expect(existsSync(path.join(pipeline.workspaceRoot, 'escape.py'))).toBe(false);
    expect(existsSync(path.join(path.dirname(pipeline.workspaceRoot), 'escape.py'))).toBe(false);
    expect(namesUnder(pipeline.workspaceRoot)).not.toContain('escape.py');
  }

  it('(a) a proposer reply that fails the schema twice halts the run as FAILED_SCHEMA; the synthesizer still gets its one call', async () => {
    const id = runs.schemaTwice;
    const run = await waitForTerminal(pipeline, id);
    expect(run).toMatchObject({ status: 'halted', stage: 'DONE', verdict: 'REJECT' });
    expect(run.halt_reason).toMatch(/^FAILED_SCHEMA: proposer reply failed its schema twice: the reply is not a JSON object/);

    const [first, repair, synth] = await expectAuditTrail(id, run, ['proposer:P1:1', 'proposer:P1:2', 'synthesizer:S1:1']);
    expect(first).toMatchObject({ status: 'completed', valid: false, error_code: 'SCHEMA_INVALID', repair_of: null });
    expect(first.error).toContain('confidence: confidence must be in [0,1]');
    // The repair is the same conversation plus the bad reply and the validation error.
    expect(repair).toMatchObject({ status: 'completed', valid: false, error_code: 'SCHEMA_INVALID', repair_of: first.id, error: 'the reply is not a JSON object' });
    expect(repair.messages.slice(0, first.messages.length)).toEqual(first.messages);
    expect(repair.messages.at(-2)).toMatchObject({ role: 'assistant', content: expect.stringContaining('"confidence":7') });
    expect(repair.messages.at(-1)?.content).toContain(first.error);
    expect(synth).toMatchObject({ status: 'completed', valid: true });

    const [{ proposals }] = await pipeline.sql<{ proposals: number }>(`SELECT count(*)::int AS proposals FROM proposals WHERE run_id = $1`, [id]);
    expect(proposals).toBe(0);
    const report = await reportOf(id);
    expect(report).toContain('Halt reason: FAILED_SCHEMA: proposer reply failed its schema twice');
  });

  it('(b) a FileChange path ../escape.py is refused by the schema, the repair succeeds, and nothing is written outside the workspace', async () => {
    const id = runs.escapeRepaired;
    const run = await waitForTerminal(pipeline, id);
    expect(run).toMatchObject({ status: 'done', stage: 'DONE', verdict: 'ACCEPT', halt_reason: null, fix_round: 0 });

    const calls = await expectAuditTrail(id, run, ['proposer:P1:1', 'critic:C1:1', 'engineer:I1:1', 'engineer:I1:2', 'validator:R1:1', 'synthesizer:S1:1']);
    const [bad, repaired] = calls.filter((c) => c.role === 'engineer');
    expect(bad).toMatchObject({ status: 'completed', valid: false, error_code: 'SCHEMA_INVALID' });
    expect(bad.error).toContain('"../escape.py"');
    expect(bad.error).toContain("'..'");
    expect(repaired).toMatchObject({ status: 'completed', valid: true, repair_of: bad.id });
    expect(calls.filter((c) => c.role !== 'engineer' || c.attempt === 2).every((c) => c.valid === true)).toBe(true);

    // Only the repaired implementation was recorded and applied, and its tests really ran.
    const impls = await pipeline.sql<{ label: string; call_id: string; status: string }>(`SELECT label, call_id, status FROM implementations WHERE run_id = $1`, [id]);
    expect(impls).toEqual([{ label: 'I1', call_id: repaired.id, status: 'applied' }]);
    const tests = await pipeline.sql(`SELECT label, exit_code, passed, failed FROM test_runs WHERE run_id = $1`, [id]);
    expect(tests).toEqual([{ label: 'T1', exit_code: 0, passed: 3, failed: 0 }]);
    const files = await pipeline.sql<{ path: string }>(`SELECT path FROM artifacts WHERE run_id = $1 AND kind = 'file' ORDER BY path`, [id]);
    expect(files.map((f) => f.path)).toEqual(['dd.py', 'test_dd.py']);

    const [{ workspace_path: ws }] = await pipeline.sql<{ workspace_path: string }>(`SELECT workspace_path FROM runs WHERE id = $1`, [id]);
    expect(ws).toBe(workspaceOf(id));
    expect(existsSync(path.join(ws, 'dd.py'))).toBe(true);
    expectNoEscape(id);
  });

  it('(c) ../escape.py twice fails the engineer step as FAILED_SCHEMA, with the reason in the run record', async () => {
    const id = runs.escapeTwice;
    const run = await waitForTerminal(pipeline, id);
    expect(run).toMatchObject({ status: 'halted', stage: 'DONE', verdict: 'REJECT' });
    expect(run.halt_reason).toMatch(/^FAILED_SCHEMA: engineer reply failed its schema twice: files\.0\.path: "\.\.\/escape\.py" contains '\.\.'/);

    const calls = await expectAuditTrail(id, run, ['proposer:P1:1', 'critic:C1:1', 'engineer:I1:1', 'engineer:I1:2', 'synthesizer:S1:1']);
    const engineer = calls.filter((c) => c.role === 'engineer');
    expect(engineer.map((c) => [c.valid, c.error_code])).toEqual([
      [false, 'SCHEMA_INVALID'],
      [false, 'SCHEMA_INVALID'],
    ]);
    expect(engineer[1].repair_of).toBe(engineer[0].id);

    // Nothing was recorded as an implementation, so nothing reached the test-runner.
    const [counts] = await pipeline.sql<{ impls: number; applies: number }>(
      `SELECT (SELECT count(*)::int FROM implementations WHERE run_id = $1) AS impls,
              (SELECT count(*)::int FROM workspace_ops WHERE run_id = $1 AND kind <> 'prepare') AS applies`,
      [id],
    );
    expect(counts).toEqual({ impls: 0, applies: 0 });
    const halts = await pipeline.sql<{ reason: string }>(`SELECT reason FROM decisions WHERE run_id = $1 AND to_stage = 'HALTED'`, [id]);
    expect(halts).toEqual([{ reason: run.halt_reason }]);
    expect(await reportOf(id)).toContain('FAILED_SCHEMA: engineer reply failed its schema twice');
    expectNoEscape(id);
  });

  it('(c2) a relative path that escapes through a symlink passes the schema but is refused by the test-runner on disk', async () => {
    const id = runs.symlinkEscape;
    const run = await waitForTerminal(pipeline, id);
    expect(run).toMatchObject({ status: 'halted', stage: 'DONE', verdict: 'REJECT', fix_round: 1 });
    expect(run.halt_reason).toMatch(/^implementation I1f1 rejected: Refusing workspace path "out\/escape\.py": /);

    const calls = await expectAuditTrail(id, run, ['proposer:P1:1', 'critic:C1:1', 'engineer:I1:1', 'engineer:I1f1:1', 'synthesizer:S1:1']);
    expect(calls.every((c) => c.status === 'completed' && c.valid === true)).toBe(true);

    // The symlink really was planted by T1, and the apply of I1f1 failed before writing a byte.
    const ws = workspaceOf(id);
    expect(lstatSync(path.join(ws, 'out')).isSymbolicLink()).toBe(true);
    const impls = await pipeline.sql<{ label: string; status: string; apply_error: string | null }>(
      `SELECT label, status, apply_error FROM implementations WHERE run_id = $1 ORDER BY label`,
      [id],
    );
    expect(impls.map((i) => [i.label, i.status])).toEqual([
      ['I1', 'applied'],
      ['I1f1', 'rejected'],
    ]);
    expect(impls[1].apply_error).toContain('out/escape.py');
    const ops = await pipeline.sql<{ kind: string; status: string }>(`SELECT kind, status FROM workspace_ops WHERE run_id = $1 ORDER BY created_at`, [id]);
    expect(ops.map((o) => `${o.kind}:${o.status}`)).toEqual(['prepare:done', 'apply:done', 'tests:done', 'apply:failed']);
    const [{ artifacts }] = await pipeline.sql<{ artifacts: number }>(`SELECT count(*)::int AS artifacts FROM artifacts WHERE run_id = $1 AND path LIKE 'out/%'`, [id]);
    expect(artifacts).toBe(0);
    expect(await reportOf(id)).toContain('implementation I1f1 rejected');
    expectNoEscape(id);
  });

  it('(d) a broken replay guard fails the call with the guard named, and the run halts saying so', async () => {
    const id = runs.guard;
    const run = await waitForTerminal(pipeline, id);
    expect(run).toMatchObject({ status: 'halted', stage: 'DONE', verdict: 'NEEDS_EVIDENCE' });
    expect(run.halt_reason).toContain('replay guard failed for critic reply #1');
    expect(run.halt_reason).toContain('the prompt contains forbidden "max_drawdown"');

    const [, critic] = await expectAuditTrail(id, run, ['proposer:P1:1', 'critic:C1:1', 'synthesizer:S1:1']);
    expect(critic).toMatchObject({ status: 'failed', valid: null, error_code: 'REPLAY_GUARD' });
    expect(critic.error).toContain('forbidden "max_drawdown"');
    const [{ critiques }] = await pipeline.sql<{ critiques: number }>(`SELECT count(*)::int AS critiques FROM critiques WHERE run_id = $1`, [id]);
    expect(critiques).toBe(0);
    expect(await reportOf(id)).toContain('replay guard failed for critic reply #1');
  });

  it('(e) bad configs are refused with a 400 naming the problem, and nothing is half-created', async () => {
    const accepted = Object.values(runs);
    const post = (body: unknown, type?: string) => submitRun(pipeline.api, body, type);

    const malformed = await post('project: dd-demo\nobjective: [unclosed\nproviders: {}\n', 'application/yaml');
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/line \d+, column \d+: malformed YAML/);

    const unknownProvider = configWith('critic-guard.cassette.yaml') as { agents: Record<string, { provider: string }> };
    unknownProvider.agents.critic.provider = 'nosuch';
    const unknown = await post(toYaml(unknownProvider), 'application/yaml');
    expect(unknown.status).toBe(400);
    expect(unknown.body.issues).toContainEqual({ path: 'agents.critic.provider', message: expect.stringContaining('unknown provider "nosuch"') });

    const missingVar = configWith('critic-guard.cassette.yaml') as { agents: Record<string, { model: string }> };
    missingVar.agents.proposer.model = '${RT_E2E_UNSET_MODEL}';
    const missing = await post(missingVar);
    expect(missing.status).toBe(400);
    // The services expand no variable (the client does, from its shell): a `${` is refused, named.
    expect(missing.body.message).toContain('agents.proposer.model');
    expect(missing.body.issues).toContainEqual({ path: 'agents.proposer.model', message: expect.stringContaining('the services never expand variables') });

    const noCassette = configWith('no-such.cassette.yaml');
    const unreadable = await post(noCassette);
    expect(unreadable.status).toBe(400);
    expect(unreadable.body.issues).toContainEqual({ path: 'providers.replay.cassette', message: expect.stringContaining(path.join(FIXTURES, 'no-such.cassette.yaml')) });

    // Only the accepted runs exist, through the API and in the store.
    const list = await getJson<Array<{ id: string }>>(pipeline.api, '/v1/runs');
    expect(list.status).toBe(200);
    expect(list.body.map((r) => r.id).sort()).toEqual([...accepted].sort());
    const [rows] = await pipeline.sql<{ projects: number; runs: number; stray: number }>(
      `SELECT (SELECT count(*)::int FROM projects) AS projects,
              (SELECT count(*)::int FROM runs) AS runs,
              (SELECT count(*)::int FROM outbox WHERE run_id IS NULL OR NOT (run_id = ANY($1))) +
              (SELECT count(*)::int FROM run_events WHERE NOT (run_id = ANY($1))) AS stray`,
      [accepted],
    );
    expect(rows).toEqual({ projects: accepted.length, runs: accepted.length, stray: 0 });
  });
});
