import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fakeCliEnv, Pipeline, readFakeCliLog, startPipeline, submitRun, waitForTerminal, type FakeScriptEntryInput } from '@roundtable/testing';
import { callRows, DEMO_CALLS, demoOn, demoReplies, withFirst, type CallRow } from './support/provider-runs';

jest.setTimeout(150_000);

const MARKER_KEY = 'sk-ant-marker-e2e-never-readable-0123456789';

/**
 * The demo end to end with every role on one subscription CLI: the fake `claude` / `codex` /
 * `grok` / `gemini` executables on the provider-worker's PATH answer from a script, through the
 * real adapters and a real `agent.<provider>` queue, in separate service processes.
 */
interface Case {
  cli: 'claude' | 'codex' | 'grok' | 'gemini';
  /** claude and grok report a list-price estimate; codex and gemini do not, so an unpriced model costs NULL. */
  model: string;
  costSource: string | null;
  agents?: Record<string, Record<string, unknown>>;
  script?: () => FakeScriptEntryInput[];
  check?: (rows: CallRow[]) => void;
}

const CASES: Case[] = [
  { cli: 'claude', model: 'sonnet', costSource: 'cli_estimate' },
  {
    cli: 'grok',
    model: 'grok-code-fast-1',
    costSource: 'cli_estimate',
    // The seed's gotcha: grok on a long critique cancels with an empty reply; that is a schema failure and its repair, not a crash.
    script: () => withFirst('critic', [{ role: 'critic', fault: 'cancelled' }]),
    agents: { critic: { max_turns: 4, effort: 'low' } },
    check: (rows) => {
      const c1 = rows.filter((r) => r.label === 'C1');
      expect(c1.map((r) => [r.attempt, r.status, r.valid, r.error_code])).toEqual([
        [1, 'completed', false, 'SCHEMA_INVALID'],
        [2, 'completed', true, null],
      ]);
      // max_turns and effort from the role's config reach the command line.
      expect(c1[0].argv).toEqual(expect.arrayContaining(['--max-turns', '4', '--reasoning-effort', 'low']));
    },
  },
  { cli: 'codex', model: 'o4-mini', costSource: null },
  { cli: 'gemini', model: 'gemini-2.5-pro', costSource: 'table' },
];

describe('the demo on each subscription CLI (fake executables on PATH, separate processes)', () => {
  let pipeline: Pipeline;
  let dir: string;
  let scriptPath: string;
  let logPath: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'rt-e2e-cli-'));
    scriptPath = path.join(dir, 'script.json');
    logPath = path.join(dir, 'calls.jsonl');
    const { PATH, FAKE_LLM_SCRIPT, FAKE_LLM_LOG } = fakeCliEnv(scriptPath, logPath);
    pipeline = await startPipeline({
      providerQueues: CASES.map((c) => `${c.cli}_cli`).join(','),
      // A key in the provider-worker's own environment, as a deployment has one: no CLI may read it.
      env: { PATH: PATH!, FAKE_LLM_SCRIPT: FAKE_LLM_SCRIPT!, FAKE_LLM_LOG: FAKE_LLM_LOG!, ANTHROPIC_API_KEY: MARKER_KEY },
    });
  });

  afterAll(async () => {
    await pipeline?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(CASES)('$cli: done ACCEPT, the exact argv on every row, billing subscription, cost $costSource', async (c) => {
    // Each fake CLI process finds its place in the script from the log: a fresh log is a fresh script.
    writeFileSync(scriptPath, JSON.stringify({ replies: (c.script ?? demoReplies)() }));
    rmSync(logPath, { force: true });
    const provider = `${c.cli}_cli`;
    const res = await submitRun(pipeline.api, demoOn({ [provider]: { type: 'cli', cli: c.cli } }, provider, c.model, c.agents));
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    const run = await waitForTerminal(pipeline, id, 120_000);
    expect(run).toMatchObject({ status: 'done', verdict: 'ACCEPT', halt_reason: null });

    const rows = await callRows(pipeline, id);
    const log = readFakeCliLog(logPath);
    expect(new Set(rows.map((r) => `${r.role}:${r.label}`))).toEqual(new Set(DEMO_CALLS));
    expect(log).toHaveLength(rows.length);
    rows.forEach((r, i) => {
      expect(r).toMatchObject({ provider, model: c.model, status: 'completed', billing: 'subscription', cost_source: c.costSource });
      // The row's argv is exactly what the executable received, binary first.
      expect(r.argv).toEqual([c.cli, ...log[i].argv]);
      expect(log[i]).toMatchObject({ cli: c.cli, stdin: '/dev/null', error: null });
      expect(r.input_tokens).toBeGreaterThan(0);
      if (c.costSource === null) expect(r.cost_usd).toBeNull();
      else expect(Number(r.cost_usd)).toBeGreaterThan(0);
    });
    // API keys never reach a subscription CLI.
    expect(log.every((l) => l.credentialVars.length === 0)).toBe(true);
    c.check?.(rows);
  });

  it('a CLI child cannot read the provider-worker\'s secrets from /proc/$PPID (it runs as cli.run_as): EACCES, nothing on any row', async () => {
    // The proposer's CLI makes the attack: read its parent's environ and mem, and reply with what it got.
    let probed = false;
    const replies = demoReplies().map((e) => (e.role === 'proposer' && !probed ? ((probed = true), { ...e, probe_parent: true }) : e));
    writeFileSync(scriptPath, JSON.stringify({ replies }));
    rmSync(logPath, { force: true });
    const res = await submitRun(pipeline.api, demoOn({ claude_cli: { type: 'cli', cli: 'claude' } }, 'claude_cli', 'sonnet'));
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    expect(await waitForTerminal(pipeline, id, 120_000)).toMatchObject({ status: 'done', verdict: 'ACCEPT' });

    const [probe] = await pipeline.sql<{ response_text: string }>(`SELECT response_text FROM agent_calls WHERE run_id = $1 AND role = 'proposer' ORDER BY seq LIMIT 1`, [id]);
    expect(probe.response_text).toContain('"parent_probe":{');
    expect(probe.response_text).toMatch(/"uid":65534,"environ":"EACCES","mem":"EACCES"/);
    const rows = await pipeline.sql<{ row: string }>(`SELECT row_to_json(c)::text AS row FROM agent_calls c WHERE run_id = $1`, [id]);
    for (const r of rows) {
      expect(r.row).not.toContain(MARKER_KEY);
      expect(r.row).not.toContain(pipeline.db.url);
    }
  });
});
