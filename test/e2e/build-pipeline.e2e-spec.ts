import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gitEnv } from '@roundtable/sandbox';
import { buildStateBothWays } from './support/build-snapshot';
import { Pipeline, projectConfigFrom, startPipeline, submitRun, waitFor, waitForTerminal } from '@roundtable/testing';

jest.setTimeout(180_000);

const REPO = path.resolve(__dirname, '../..');
const DEMO = path.join(REPO, 'examples/dd-demo/project.yaml');

describe('the build pipeline across real services (separate processes)', () => {
  let pipeline: Pipeline;

  beforeAll(async () => {
    pipeline = await startPipeline({ providerQueues: 'replay' });
  });

  afterAll(async () => {
    await pipeline?.stop();
  });

  it('runs the demo to done with ACCEPT, one fix round, and one agent_calls row per LLM request', async () => {
    const res = await submitRun(pipeline.api, projectConfigFrom(DEMO));
    expect(res.status).toBe(202);
    const id = res.body.id as string;

    const run = await waitForTerminal(pipeline, id, 120_000);
    expect(run).toMatchObject({ status: 'done', stage: 'DONE', verdict: 'ACCEPT', fix_round: 1, round: 1, halt_reason: null });

    // One row per LLM request: the cassette holds exactly eight replies and each was requested once.
    const calls = await pipeline.sql(`SELECT role, label, attempt, status, valid FROM agent_calls WHERE run_id = $1 ORDER BY seq`, [id]);
    expect(calls.map((c) => `${c.role}:${c.label}`)).toEqual([
      'proposer:P1',
      'critic:C1',
      'reviser:P2',
      'critic:C2',
      'engineer:I1',
      'engineer:I1f1',
      'validator:R1',
      'synthesizer:S1',
    ]);
    expect(calls.every((c) => c.status === 'completed' && c.valid === true && c.attempt === 1)).toBe(true);

    // The snapshot on the run row (what a step starts from) is what the tables record.
    const both = await buildStateBothWays(pipeline, id);
    expect(both.snapshot.proposals.map((p) => p.label)).toEqual(['P1', 'P2']);
    expect(both.snapshot).toEqual(both.tables);
    expect((run as { usage: { calls: number } }).usage.calls).toBe(8);

    // The tests really ran: the first failed, the fix passed.
    const tests = await pipeline.sql(`SELECT label, exit_code, passed, failed FROM test_runs WHERE run_id = $1 ORDER BY label`, [id]);
    expect(tests).toEqual([
      expect.objectContaining({ label: 'T1', failed: 1 }),
      expect.objectContaining({ label: 'T2', exit_code: 0, failed: 0 }),
    ]);
    expect(tests[0].exit_code).not.toBe(0);

    // The event log is gap-free and ends with the terminal event.
    const events = await pipeline.sql<{ sequence: number; type: string }>(`SELECT sequence, type FROM run_events WHERE run_id = $1 ORDER BY sequence`, [id]);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)?.type).toBe('run_completed');

    const report = await (await fetch(`${pipeline.api}/v1/runs/${id}/report`)).text();
    expect(report).toContain('ACCEPT');
    expect(report).toMatch(/fix round/i);

    // A greenfield run has no original to merge into: its branch is offered as a bundle and a patch.
    const tmp = mkdtempSync(path.join(tmpdir(), 'rt-e2e-export-'));
    try {
      const bundle = await waitFor('the run branch bundle', async () => {
        const r = await fetch(`${pipeline.api}/v1/runs/${id}/bundle`);
        return r.status === 200 ? Buffer.from(await r.arrayBuffer()) : undefined;
      });
      const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, env: gitEnv(), encoding: 'utf8' });
      writeFileSync(path.join(tmp, 'run.bundle'), bundle);
      git(tmp, 'clone', '-q', '--branch', `roundtable/${id}`, 'run.bundle', 'cloned');
      const fixed = readFileSync(path.join(tmp, 'cloned', 'dd.py'), 'utf8');
      expect(fixed).toContain('for x in equity[1:]:');
      const patch = await fetch(`${pipeline.api}/v1/runs/${id}/patch`);
      expect(patch.headers.get('content-disposition')).toMatch(/^attachment; filename="roundtable-run_[A-Za-z0-9_-]+\.patch"$/);
      writeFileSync(path.join(tmp, 'run.patch'), Buffer.from(await patch.arrayBuffer()));
      git(tmp, 'init', '-q', 'applied');
      git(path.join(tmp, 'applied'), 'apply', '../run.patch');
      expect(readFileSync(path.join(tmp, 'applied', 'dd.py'), 'utf8')).toBe(fixed);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
