import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { jobId, OperatorPolicy, QUEUE } from '@roundtable/contracts';
import { AgentCallEntity, type TestDatabase } from '@roundtable/persistence';
import type { JobProducer } from '@roundtable/queues';
import { FAKE_CLI_BIN_DIR, fakeCliEnv, readFakeCliLog, startFakeLlmServer, type FakeLlmServer } from '@roundtable/testing';
import { insertQueuedCall, insertRun, PROPOSAL, workerTestInfra, type WorkerTestInfra } from './agent-call.fixture';
import { AgentCallService } from './agent-call.service';

jest.setTimeout(30_000);

const RUN = 'run_policy0001';
const KEY = 'sk-ant-int-policy-0123456789';
/**
 * The worker's own check of a run's provider entries against the operator policy (defence in
 * depth): the rows are written around the api, as an attacker with database access or a bug
 * in the api would. A refused call is failed once, POLICY_REFUSED, not retried, and reported;
 * its provider is never contacted: the fake wire server and the fake CLIs log every request.
 */
describe('AgentCallService: the operator policy, checked again before each call', () => {
  let infra: WorkerTestInfra;
  let db: TestDatabase;
  let ds: DataSource;
  let producer: JobProducer;
  let server: FakeLlmServer;
  let tmp: string;
  let cliLog: string;
  let calls: AgentCallService;
  let seq = 0;

  /** The strict policy of this test: the key goes only to the official URL, one Ollama host, cassettes from one directory, codex and claude only. */
  const policyFor = (cassetteRoot: string) =>
    OperatorPolicy.parse({
      api_keys: { INT_ANTHROPIC_KEY: { provider_type: 'anthropic', base_urls: ['https://api.anthropic.com'] }, INT_OK_KEY: { provider_type: 'anthropic', base_urls: ['http://127.0.0.1:*'] } },
      ollama: { hosts: ['http://ollama.internal:11434'] },
      cassettes: { roots: [cassetteRoot] },
      cli: { allowed: ['claude'], binaries: { claude: path.join(FAKE_CLI_BIN_DIR, 'claude') } },
    });

  async function callOn(provider: string, model = 'm'): Promise<string> {
    seq += 1;
    const messages = [
      { role: 'system' as const, content: 'You are the proposer in a team of specialist agents.' },
      { role: 'user' as const, content: `Objective: x (${seq}).` },
    ];
    const id = await insertQueuedCall(ds, RUN, seq, { provider, model, label: 'P1', messages });
    await ds.query(`UPDATE runs SET call_seq = $2 WHERE id = $1`, [RUN, seq]);
    return id;
  }

  async function refused(provider: string): Promise<AgentCallEntity> {
    const id = await callOn(provider);
    expect(await calls.execute(RUN, id)).toEqual({ kind: 'done', callId: id });
    const rows = await ds.getRepository(AgentCallEntity).find({ where: { runId: RUN, provider } });
    expect(rows).toHaveLength(1); // not retried
    const [row] = rows;
    expect(row).toMatchObject({ status: 'failed', errorCode: 'POLICY_REFUSED', valid: null });
    // Reported like any last try: the workflow halts (or falls back) on it.
    const done = await producer.queue(QUEUE.orchestrator).getJob(jobId(id, 'done'));
    expect(done?.data).toMatchObject({ callId: id, outcome: { status: 'failed', error_code: 'POLICY_REFUSED', error: row.error } });
    return row;
  }

  beforeAll(async () => {
    server = await startFakeLlmServer({ apiKey: KEY, script: { replies: [{ role: 'proposer', reply: PROPOSAL, times: 10 }] } });
    tmp = mkdtempSync(path.join(tmpdir(), 'rt-int-policy-'));
    const roots = path.join(tmp, 'cassettes');
    mkdirSync(roots);
    const outside = path.join(tmp, 'outside.yaml');
    writeFileSync(outside, `replies:\n  - role: proposer\n    reply: ${JSON.stringify(PROPOSAL)}\n`);
    symlinkSync(outside, path.join(roots, 'link.yaml'));
    const script = path.join(tmp, 'cli-script.json');
    cliLog = path.join(tmp, 'cli-calls.jsonl');
    writeFileSync(script, JSON.stringify({ replies: [{ role: 'proposer', reply: PROPOSAL, times: 5 }] }));
    const cliEnv = fakeCliEnv(script, cliLog, {});
    // The project's own "binary": never run (it would leave a file behind).
    const evil = path.join(tmp, 'evil-claude');
    writeFileSync(evil, `#!/bin/sh\ntouch ${tmp}/evil-ran\n`, { mode: 0o755 });

    infra = await workerTestInfra('rt_int_policy');
    ({ db, ds, producer } = infra);

    const anthropic = server.baseUrls.anthropic;
    const config = {
      project: 'policy',
      objective: 'x',
      providers: {
        leak: { type: 'anthropic', api_key_env: 'DATABASE_URL', base_url: anthropic },
        offlist: { type: 'anthropic', api_key_env: 'INT_ANTHROPIC_KEY', base_url: anthropic },
        ok: { type: 'anthropic', api_key_env: 'INT_OK_KEY', base_url: anthropic },
        llama: { type: 'ollama', host: server.baseUrls.ollama },
        cassette_out: { type: 'replay', cassette: outside, latency_ms: 0 },
        cassette_link: { type: 'replay', cassette: path.join(roots, 'link.yaml'), latency_ms: 0 },
        grok_cli: { type: 'cli', cli: 'grok' },
        claude_cli: { type: 'cli', cli: 'claude' },
        claude_own_binary: { type: 'cli', cli: 'claude', binary: evil },
      },
      agents: {},
    };
    await insertRun(ds, RUN, config);

    calls = new AgentCallService(ds, producer, {
      retryDelaysMs: [10, 10, 10],
      pricing: { models: {} },
      // What a worker holds: its database URL, the keys; the CLIs come from the policy, not PATH.
      env: { DATABASE_URL: db.url, INT_ANTHROPIC_KEY: KEY, INT_OK_KEY: KEY, PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, FAKE_LLM_SCRIPT: cliEnv.FAKE_LLM_SCRIPT, FAKE_LLM_LOG: cliEnv.FAKE_LLM_LOG },
      policy: policyFor(roots),
    });
  });

  afterAll(async () => {
    await infra?.close();
    await server?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('DATABASE_URL as an api_key_env: refused, the wire server received nothing', async () => {
    const row = await refused('leak');
    expect(row.error).toMatch(/^providers\.leak\.api_key_env: DATABASE_URL is not a provider key in the operator policy/);
    expect(row.error).not.toContain(db.url);
    expect(server.requests).toEqual([]);
  });

  it('an allowed key with a base_url off its list: refused, nothing sent', async () => {
    const row = await refused('offlist');
    expect(row.error).toContain('providers.offlist.base_url: INT_ANTHROPIC_KEY may only be sent to [https://api.anthropic.com]');
    expect(row.error).toContain('(api_keys.INT_ANTHROPIC_KEY.base_urls)');
    expect(server.requests).toEqual([]);
  });

  it('an Ollama host the policy does not allow: refused, nothing sent', async () => {
    const row = await refused('llama');
    expect(row.error).toContain('providers.llama.host:');
    expect(row.error).toContain('(ollama.hosts)');
    expect(server.requests).toEqual([]);
  });

  it('a replay cassette outside the cassette roots, also through a symlink inside them: refused', async () => {
    expect((await refused('cassette_out')).error).toMatch(/providers\.cassette_out\.cassette: .*\(cassettes\.roots\)/);
    expect((await refused('cassette_link')).error).toMatch(/providers\.cassette_link\.cassette: .*\(cassettes\.roots\)/);
  });

  it('a CLI the policy does not offer, and a project naming its own binary: refused, no CLI started', async () => {
    expect((await refused('grok_cli')).error).toContain('the grok CLI is not offered by the operator policy (ROUNDTABLE_POLICY); offered: [claude] (cli.allowed)');
    expect((await refused('claude_own_binary')).error).toMatch(/providers\.claude_own_binary\.binary: .*cli\.binaries in ROUNDTABLE_POLICY/);
    expect(existsSync(path.join(tmp, 'evil-ran'))).toBe(false);
    expect(readFakeCliLog(cliLog)).toEqual([]);
  });

  it('a model id a CLI would read as a flag, written around the api: refused before the CLI starts', async () => {
    const id = await callOn('claude_cli', '--dangerously-skip-permissions');
    await calls.execute(RUN, id);
    const row = await ds.getRepository(AgentCallEntity).findOneByOrFail({ id });
    expect(row).toMatchObject({ status: 'failed', errorCode: 'BAD_REQUEST' });
    expect(row.error).toMatch(/^model: "--dangerously-skip-permissions" starts with "-"/);
    expect(readFakeCliLog(cliLog)).toEqual([]);
  });

  it('what the policy allows still runs: the key to its listed URL, the CLI from the policy\'s binaries', async () => {
    const ok = await callOn('ok');
    await calls.execute(RUN, ok);
    expect(await ds.getRepository(AgentCallEntity).findOneByOrFail({ id: ok })).toMatchObject({ status: 'completed', valid: true });
    expect(server.requests).toHaveLength(1);

    const cli = await callOn('claude_cli');
    await calls.execute(RUN, cli);
    const row = await ds.getRepository(AgentCallEntity).findOneByOrFail({ id: cli });
    expect(row).toMatchObject({ status: 'completed', valid: true });
    expect(row.argv?.[0]).toBe(path.join(FAKE_CLI_BIN_DIR, 'claude'));
    expect(readFakeCliLog(cliLog)).toHaveLength(1);
  });
});
