import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolOpResult } from '@roundtable/contracts';
import { FakeLlmServer, Pipeline, startFakeLlmServer, startPipeline, submitRun, waitForTerminal, type FakeScriptEntryInput } from '@roundtable/testing';
import { estimateTokens } from '@roundtable/workflow';
import { callRows, demoOn, demoReplies, writeTestPricing } from './support/provider-runs';

jest.setTimeout(180_000);

/**
 * The engineer in agent mode on each API provider (issue 21): the engine's tool loop, one
 * recorded call a turn, through the real SDK in the provider-worker to the fake wire server
 * speaking that provider's tool-call format; the tools run by the test-runner in the run's
 * worktree, run_tests in the Docker sandbox. The demo's story told with tools: write the code
 * and its tests, run them (one fails), read the code, fix it, run them again, finish. Then a
 * turn cap that halts the loop, and a max_tokens cap that stops it before a turn that would
 * not fit, with no token past the cap.
 */
const KEYS = { E2E_ANTHROPIC_KEY: 'sk-ant-e2e-0123456789', E2E_OPENAI_KEY: 'sk-e2e-openai-0123456789', E2E_GEMINI_KEY: 'AIza-e2e-0123456789' };
const USAGE = { input_tokens: 100, output_tokens: 50 };

type Body = Record<string, unknown>;
interface Case {
  name: string;
  model: string;
  config: (server: FakeLlmServer) => Record<string, unknown>;
  /** The tool names offered, as the request body carries them, and no structured-output field beside them. */
  offered: (body: Body) => string[];
}

const CASES: Case[] = [
  {
    name: 'anthropic',
    model: 'claude-haiku-4-5',
    config: (s) => ({ type: 'anthropic', api_key_env: 'E2E_ANTHROPIC_KEY', base_url: s.baseUrls.anthropic }),
    offered: (b) => {
      expect(b.output_config).toBeUndefined();
      return (b.tools as { name: string }[]).map((t) => t.name);
    },
  },
  {
    name: 'openai',
    model: 'gpt-5',
    config: (s) => ({ type: 'openai_compat', api_key_env: 'E2E_OPENAI_KEY', base_url: s.baseUrls.openai }),
    offered: (b) => {
      expect(b.response_format).toBeUndefined();
      return (b.tools as { function: { name: string } }[]).map((t) => t.function.name);
    },
  },
  {
    name: 'gemini',
    model: 'gemini-2.5-flash',
    config: (s) => ({ type: 'gemini', api_key_env: 'E2E_GEMINI_KEY', base_url: s.baseUrls.gemini }),
    offered: (b) => {
      expect((b.generationConfig as Body | undefined)?.responseJsonSchema).toBeUndefined();
      return (b.tools as { functionDeclarations: { name: string }[] }[])[0].functionDeclarations.map((t) => t.name);
    },
  },
  {
    name: 'ollama',
    model: 'qwen3:30b-a3b',
    config: (s) => ({ type: 'ollama', host: s.baseUrls.ollama }),
    offered: (b) => {
      expect(b.format).toBeUndefined();
      return (b.tools as { function: { name: string } }[]).map((t) => t.function.name);
    },
  },
];

interface DemoFile {
  path: string;
  content: string;
}

/** The demo's script with the engineer's two answers told as three tool turns; every reply reports USAGE. */
function toolScript(): FakeScriptEntryInput[] {
  const replies = demoReplies().map((r) => ({ ...r, usage: USAGE }));
  const [first, fix] = replies.filter((r) => r.role === 'engineer');
  const [dd, tests] = (first.reply as { files: DemoFile[] }).files;
  const fixed = (fix.reply as { files: DemoFile[] }).files[0];
  const { files: _files, ...report } = fix.reply as Record<string, unknown>;
  const turns: FakeScriptEntryInput[] = [
    {
      role: 'engineer',
      expects: first.expects,
      usage: USAGE,
      tool_calls: [
        { name: 'list_files', arguments: {} },
        { name: 'write_file', arguments: { ...dd } },
        { name: 'write_file', arguments: { ...tests } },
        { name: 'run_tests', arguments: {} },
      ],
    },
    {
      // The sandbox's answer to run_tests, in the prompt: the demo's off-by-one fails one test.
      role: 'engineer',
      expects: ['exit 1: 6 passed, 1 failed', 'test_ends_at_trough'],
      usage: USAGE,
      tool_calls: [
        { name: 'read_file', arguments: { path: 'dd.py' } },
        { name: 'write_file', arguments: { ...fixed } },
        { name: 'run_tests', arguments: {} },
      ],
    },
    { role: 'engineer', expects: ['range(1, len(equity) - 1)', 'exit 0: 7 passed'], usage: USAGE, tool_calls: [{ name: 'finish', arguments: report }] },
  ];
  const out: FakeScriptEntryInput[] = [];
  for (const r of replies) {
    if (r.role === 'engineer') {
      if (r === first) out.push(...turns);
      continue;
    }
    // One implementation now (I1, no fix round); the synthesizer's guards quote the fix round that is gone.
    if (r.role === 'validator') out.push({ ...r, reply: { ...(r.reply as Body), implementation_id: 'I1' } });
    else if (r.role === 'synthesizer') out.push({ ...r, expects: undefined });
    else out.push(r);
  }
  return out;
}

const agentEngineer = { mode: 'agent' };
const runTestsAllowed = { permissions: { engineer: { workspace: 'write', run_tests: true } } };

describe('the engineer in agent mode on each API provider: the tool loop (separate processes, real SDKs, Docker sandbox)', () => {
  let pipeline: Pipeline;
  let dir: string;
  let server: FakeLlmServer | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'rt-e2e-tools-'));
    pipeline = await startPipeline({ providerQueues: CASES.map((c) => c.name).join(','), env: { ...KEYS, PRICING_FILE: writeTestPricing(dir) } });
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  afterAll(async () => {
    await pipeline?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const toolOps = (runId: string) =>
    pipeline.sql<{ id: string; status: string; result: ToolOpResult }>(`SELECT id, status, result FROM workspace_ops WHERE run_id = $1 AND kind = 'tool' ORDER BY id`, [runId]);

  async function run(c: Case, server: FakeLlmServer, engineer: Record<string, unknown>, overrides: Record<string, unknown> = {}) {
    const res = await submitRun(pipeline.api, demoOn({ [c.name]: c.config(server) }, c.name, c.model, { engineer }, { ...runTestsAllowed, ...overrides }));
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    return { id, run: await waitForTerminal(pipeline, id, 150_000) };
  }

  it.each(CASES)('$name: the engineer writes, runs the tests, reads, fixes and finishes through tool calls; the run ends done ACCEPT', async (c) => {
    server = await startFakeLlmServer({ script: { replies: toolScript() } });
    const { id, run: done } = await run(c, server, agentEngineer);
    expect(done).toMatchObject({ status: 'done', verdict: 'ACCEPT', halt_reason: null });

    // Three recorded turns of I1, each its own call row, and the rest of the demo as it was.
    const rows = await callRows(pipeline, id);
    expect(rows.map((r) => `${r.role}:${r.label}`)).toEqual(['proposer:P1', 'critic:C1', 'reviser:P2', 'critic:C2', 'engineer:I1', 'engineer:I1', 'engineer:I1', 'validator:R1', 'synthesizer:S1']);
    const turns = await pipeline.sql<{ schema_name: string; valid: boolean }>(`SELECT schema_name, valid FROM agent_calls WHERE run_id = $1 AND role = 'engineer' ORDER BY seq`, [id]);
    expect(turns).toEqual(Array(3).fill({ schema_name: 'EngineerTurnWithTests', valid: true }));

    // Each turn offered the tools natively; the other roles answered with structured output.
    const engineerRequests = server.requests.filter((q) => q.role === 'engineer');
    expect(engineerRequests).toHaveLength(3);
    for (const q of engineerRequests) expect(c.offered(q.body as Body)).toEqual(['list_files', 'read_file', 'write_file', 'delete_file', 'run_tests', 'finish']);

    // Every tool call and its result is on record, run in the worktree and the sandbox.
    const ops = await toolOps(id);
    expect(ops.map((o) => [o.status, o.result.calls.map((x) => x.name)])).toEqual([
      ['done', ['list_files', 'write_file', 'write_file', 'run_tests']],
      ['done', ['read_file', 'write_file', 'run_tests']],
      ['done', ['finish']],
    ]);
    expect(ops[0].result.results.map((r) => r.is_error)).toEqual([false, false, false, false]);
    expect(ops[0].result.results[3].content).toMatch(/^exit 1: 6 passed, 1 failed/);
    expect(ops[1].result.results[0].content).toContain('range(1, len(equity) - 1)');
    expect(ops[1].result.results[2].content).toMatch(/^exit 0: 7 passed/);
    expect(ops[2].result.changes?.files.map((f) => f.path).sort()).toEqual(['dd.py', 'test_dd.py']);

    // finish became I1: git's view of the worktree (the fixed code), applied and tested once more by the pipeline.
    const [impl] = await pipeline.sql<{ label: string; body: { files: DemoFile[]; notes: string } }>(`SELECT label, body FROM implementations WHERE run_id = $1`, [id]);
    expect(impl.label).toBe('I1');
    expect(impl.body.files.find((f) => f.path === 'dd.py')!.content).toContain('for x in equity[1:]:');
    const tests = await pipeline.sql<{ label: string; exit_code: number; passed: number }>(`SELECT label, exit_code, passed FROM test_runs WHERE run_id = $1`, [id]);
    expect(tests).toEqual([{ label: 'T1', exit_code: 0, passed: 7 }]);
  });

  it.each(CASES)('$name: a turn cap halts the loop cleanly, with the reason, after max_turns turns', async (c) => {
    server = await startFakeLlmServer({ script: { replies: toolScript() } });
    const { id, run: halted } = await run(c, server, { ...agentEngineer, max_turns: 2 });
    expect(halted).toMatchObject({ status: 'halted' });
    expect(halted.halt_reason).toMatch(/the engineer used all 2 of its turns \(agents\.engineer\.max_turns\) on I1 without calling finish/);
    expect(server.requests.filter((q) => q.role === 'engineer')).toHaveLength(2);
    expect((await toolOps(id)).map((o) => o.status)).toEqual(['done', 'done']);
    expect(await pipeline.sql(`SELECT 1 FROM implementations WHERE run_id = $1`, [id])).toEqual([]);
  });

  it.each(CASES)('$name: a max_tokens cap stops the loop before a turn that would not fit, and nothing overshoots it', async (c) => {
    // Measured on a run without the cap: what turn 3 would reserve, and what was used before it.
    server = await startFakeLlmServer({ script: { replies: toolScript() } });
    const measured = await run(c, server, agentEngineer);
    const [turn3] = await pipeline.sql<{ messages: { content: string; toolCalls?: unknown[] }[]; seq: number }>(
      `SELECT messages, seq FROM agent_calls WHERE run_id = $1 AND role = 'engineer' ORDER BY seq DESC LIMIT 1`,
      [measured.id],
    );
    const usedBefore = (await callRows(pipeline, measured.id)).filter((r) => r.seq < turn3.seq).reduce((n, r) => n + r.input_tokens! + r.output_tokens!, 0);
    const maxTokens = 4096; // the engineer's default max_tokens
    // A little below what turn 3 needs (its prompt may differ by a few characters: the test output's timing).
    const cap = usedBefore + estimateTokens(turn3.messages as never) + maxTokens - 50;
    await server.close();

    server = await startFakeLlmServer({ script: { replies: toolScript() } });
    const demoBudget = { max_rounds: 3, max_fix_rounds: 1, max_calls: 16, max_cost_usd: 5.0, max_seconds: 900 };
    const { id, run: halted } = await run(c, server, agentEngineer, { budget: { ...demoBudget, max_tokens: cap } });
    expect(halted).toMatchObject({ status: 'halted' });
    expect(halted.halt_reason).toMatch(/max_tokens would be exceeded/);
    expect(server.requests.filter((q) => q.role === 'engineer')).toHaveLength(2);
    const used = (await callRows(pipeline, id)).reduce((n, r) => n + (r.input_tokens ?? 0) + (r.output_tokens ?? 0), 0);
    expect(used).toBeLessThanOrEqual(cap);
  });
});
