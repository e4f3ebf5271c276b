import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from './cli';
import { captureIo, FakeApi, sendJson, startFakeApi } from './fake-api.fixture';

/** `roundtable fork` against a fake api: the body it posts, the id it prints, the api's refusal. */
describe('roundtable fork', () => {
  let api: FakeApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  const forkApi = () =>
    startFakeApi((req, res) => {
      if (req.url === '/v1/runs/run_busy/fork') return sendJson(res, 409, { error: 'run_not_ended', message: 'run run_busy is running: a fork starts from a run that has ended' });
      return sendJson(res, 202, { id: 'run_fork1', status: 'queued', links: {}, forked_from: { run_id: 'run_a', stage: 'CRITIQUE', copied_calls: 1 } });
    });

  it('posts the stage and the edits (the file under the flags, its variables expanded) and prints the new id alone', async () => {
    api = await forkApi();
    const dir = mkdtempSync(path.join(tmpdir(), 'rt-cli-fork-'));
    writeFileSync(path.join(dir, 'edits.yaml'), 'budget: { max_calls: 30 }\nobjective: "for ${WHO}"\n');
    const io = captureIo({ cwd: dir, env: { WHO: 'the team' } });
    const argv = ['fork', 'run_a', '--from', 'critique', '--requirement', 'Standard library only', '--agent', 'critic=:grok-4-fast', '--edits', 'edits.yaml', '--api', api.url];
    expect(await runCli(argv, io.io)).toBe(0);
    const post = api.requests.at(-1)!;
    expect([post.method, post.url]).toEqual(['POST', '/v1/runs/run_a/fork']);
    expect(JSON.parse(post.body)).toEqual({
      from: 'CRITIQUE',
      edits: { budget: { max_calls: 30 }, objective: 'for the team', requirements: ['Standard library only'], agents: { critic: { model: 'grok-4-fast' } } },
    });
    expect(io.stdout()).toBe('run_fork1\n');
  });

  it('needs --from, and prints the api refusal', async () => {
    api = await forkApi();
    const missing = captureIo();
    expect(await runCli(['fork', 'run_a', '--api', api.url], missing.io)).toBe(1);
    expect(missing.stderr()).toContain('fork needs --from STAGE');
    const busy = captureIo();
    expect(await runCli(['fork', 'run_busy', '--from', 'REVISE', '--api', api.url], busy.io)).toBe(1);
    expect(busy.stderr()).toContain('HTTP 409 run_not_ended: run run_busy is running');
  });
});
