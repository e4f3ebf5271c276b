import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from './cli';
import { captureIo, FakeApi, sendJson, startFakeApi } from './fake-api.fixture';

const VERSION = (n: number, locked: string | null = null) => ({
  idea_id: 'idea_0123456789',
  version: n,
  worksheet: { title: 'Swapboard', problem: 'swaps wait two days', target_user: 'ward nurses', solution: 'an app', evidence: ['E1'], assumptions: ['managers approve in the app'], open_risks: [], no_evidence_yet: false },
  created_by: 'writer',
  created_at: '2026-04-01T10:00:00.000Z',
  locked: locked ? { run_id: locked, locked_at: '2026-04-01T11:00:00.000Z' } : null,
  panels: locked ? [locked] : [],
  readiness: { ready: n !== 3, checks: n === 3 ? [{ check: 'problem_filled', ok: false, message: 'problem is a placeholder ("TBD")' }] : [] },
});

/** `roundtable idea …` against a fake api: what each action sends and prints, and the api's refusals. */
describe('roundtable idea', () => {
  let api: FakeApi;
  const dir = mkdtempSync(path.join(tmpdir(), 'rt-cli-idea-'));
  writeFileSync(path.join(dir, 'idea.yaml'), 'title: Swapboard\nproblem: swaps wait two days\ntarget_user: ward nurses\nsolution: an app\nassumptions: [managers approve in the app]\nno_evidence_yet: true\n');
  writeFileSync(path.join(dir, 'edit.yaml'), 'problem: TBD\n');
  writeFileSync(path.join(dir, 'list.yaml'), '- not a mapping\n');
  writeFileSync(path.join(dir, 'panel.yaml'), 'project: swap-panel\nworkflow: panel\nidea: { title: inline, description: d, target_user: u }\nproviders:\n  replay: { type: replay, cassette: cassette.yaml }\nagents:\n  vc: { provider: replay, model: "${MODEL:-m}" }\n');
  writeFileSync(path.join(dir, 'experiment.yaml'), 'workflow: experiment\nproject: swapboard\nrepo: .\ndomain: trading\nproviders:\n  replay: { type: replay, cassette: cassettes/pass.yaml }\nproposer: { provider: replay, model: "${MODEL:-m}" }\ninterpreter: { provider: replay, model: m }\ncritic: { provider: replay, model: m }\n');
  writeFileSync(path.join(dir, 'build.yaml'), 'project: swapboard\nproviders:\n  replay: { type: replay, cassette: cassettes/build.yaml }\nagents:\n  proposer: { provider: replay, model: "${MODEL}" }\nbudget: { max_calls: 1 }\n');

  beforeEach(async () => {
    api = await startFakeApi((req, res) => {
      const url = req.url ?? '';
      if (req.method === 'POST' && url === '/v1/ideas') return sendJson(res, 201, { id: 'idea_0123456789', title: 'Swapboard', latest_version: 1, latest: VERSION(1), versions: [] });
      if (req.method === 'POST' && url === '/v1/ideas/idea_0123456789/versions') {
        const body = JSON.parse(req.body) as { base_version?: number };
        if (body.base_version === 2) return sendJson(res, 409, { error: 'version_locked', message: 'idea idea_0123456789 version 2 is locked: panel run run_p1 scored it, so it does not change; make a new version instead' });
        return sendJson(res, 201, VERSION(3));
      }
      if (url === '/v1/ideas/idea_0123456789') return sendJson(res, 200, { id: 'idea_0123456789', title: 'Swapboard', latest_version: 2, latest: VERSION(2, 'run_p1'), versions: [VERSION(1), VERSION(2, 'run_p1')], handoffs: [{ run_id: 'run_build1', status: 'halted', created_at: '2026-04-02T10:00:00.000Z', version: 2, panel_run_id: 'run_p1', recommendation: 'GO' }] });
      if (url === '/v1/ideas/idea_0123456789/versions/2') return sendJson(res, 200, VERSION(2, 'run_p1'));
      if (url === '/v1/ideas/idea_0123456789/versions') return sendJson(res, 200, [VERSION(1), VERSION(2, 'run_p1')]);
      if (url === '/v1/ideas/idea_0123456789/diff?from=1&to=2') {
        return sendJson(res, 200, { idea_id: 'idea_0123456789', from: 1, to: 2, fields: [{ field: 'title', changed: true, from: 'Swap', to: 'Swapboard' }, { field: 'problem', changed: false, from: 'p', to: 'p' }] });
      }
      if (req.method === 'POST' && url === '/v1/runs') return sendJson(res, 202, { id: 'run_panel1', status: 'queued', links: {} });
      if (req.method === 'POST' && url === '/v1/ideas/idea_0123456789/handoff') {
        const body = JSON.parse(req.body) as { panel_run_id?: string };
        if (body.panel_run_id === 'run_nogo') return sendJson(res, 409, { error: 'handoff_refused', message: 'panel run_nogo said NO-GO on version 1: a NO-GO is not handed on' });
        return sendJson(res, 201, { id: 'run_build1', status: 'queued', links: {}, handed_off_from: { idea_id: 'idea_0123456789', version: 2, panel_run_id: 'run_p1', recommendation: 'GO' }, objective: 'o', requirements: [] });
      }
      if (req.method === 'POST' && url === '/v1/ideas/idea_0123456789/experiment') {
        const body = JSON.parse(req.body) as { panel_run_id?: string };
        if (body.panel_run_id === 'run_nogo') return sendJson(res, 409, { error: 'no_recommended_experiment', message: 'panel run run_nogo has no moderator synthesis with a recommended experiment: there is nothing to draft; resume it or run a panel again' });
        return sendJson(res, 201, { experiment_id: 'exp_0123456789', run_id: 'run_exp1' });
      }
      if (req.method === 'POST' && url === '/v1/ideas/idea_fresh/experiment') return sendJson(res, 409, { error: 'no_done_panel', message: 'idea idea_fresh has no done panel: run one first' });
      if (req.method === 'POST' && url === '/v1/ideas/idea_0123456789/evidence') return sendJson(res, 201, { id: 'E2', ...JSON.parse(req.body) });
      return sendJson(res, 404, { error: 'idea_not_found', message: `no idea at ${url}` });
    });
  });
  afterEach(async () => {
    await api.close();
  });

  const run = async (argv: string[]) => {
    const io = captureIo({ cwd: dir });
    const code = await runCli([...argv, '--api', api.url], io.io);
    return { code, out: io.stdout(), err: io.stderr() };
  };

  it('new FILE posts the worksheet as it is written and prints the idea id', async () => {
    expect(await run(['idea', 'new', 'idea.yaml'])).toMatchObject({ code: 0, out: 'idea_0123456789\n' });
    const post = api.requests.at(-1)!;
    expect([post.method, post.url]).toEqual(['POST', '/v1/ideas']);
    expect(JSON.parse(post.body)).toEqual({ title: 'Swapboard', problem: 'swaps wait two days', target_user: 'ward nurses', solution: 'an app', assumptions: ['managers approve in the app'], no_evidence_yet: true });
    const notMapping = await run(['idea', 'new', 'list.yaml']);
    expect(notMapping.code).toBe(1);
    expect(notMapping.err).toContain('list.yaml is not a YAML mapping');
    expect((await run(['idea', 'new', 'nowhere.yaml'])).err).toContain('cannot read nowhere.yaml: no such file');
  });

  it('edit ID FILE posts the changed fields (with --base as base_version), prints the new version, and the 409 of a locked base', async () => {
    const edited = await run(['idea', 'edit', 'idea_0123456789', 'edit.yaml']);
    expect(edited.code).toBe(0);
    expect(edited.out).toBe('version 3 (not ready for a panel: see `roundtable idea show`)\n');
    expect(JSON.parse(api.requests.at(-1)!.body)).toEqual({ problem: 'TBD' });
    const locked = await run(['idea', 'edit', 'idea_0123456789', 'edit.yaml', '--base', '2']);
    expect(JSON.parse(api.requests.at(-1)!.body)).toEqual({ problem: 'TBD', base_version: 2 });
    expect(locked.code).toBe(1);
    expect(locked.err).toContain('HTTP 409 version_locked: idea idea_0123456789 version 2 is locked: panel run run_p1');
  });

  it('show ID prints the latest version, its readiness and each version\'s lock and panels; versions lists them', async () => {
    const shown = await run(['idea', 'show', 'idea_0123456789']);
    expect(shown.code).toBe(0);
    expect(shown.out.split('\n')).toEqual(
      expect.arrayContaining(['idea_0123456789  Swapboard', 'version 2 of 2 (locked by run_p1)', '  evidence: E1', 'readiness: ready', '  v1  open  panels: -', '  v2  locked by run_p1  panels: run_p1', 'handoffs:', '  run_build1  halted  from v2, panel run_p1 (GO)']),
    );
    const versions = await run(['idea', 'versions', 'idea_0123456789']);
    expect(versions.out).toBe('v1  2026-04-01T10:00:00.000Z  writer  open  panels: -\nv2  2026-04-01T10:00:00.000Z  writer  locked by run_p1  panels: run_p1\n');
    const json = await run(['idea', 'versions', 'idea_0123456789', '--json']);
    expect(JSON.parse(json.out)).toHaveLength(2);
  });

  it('diff ID A B prints the changed fields only', async () => {
    expect(await run(['idea', 'diff', 'idea_0123456789', '1', '2'])).toMatchObject({ code: 0, out: 'title: "Swap" → "Swapboard"\n' });
    expect((await run(['idea', 'diff', 'idea_0123456789', 'one', '2'])).err).toContain('idea diff needs version numbers, got one for A');
  });

  it('log ID posts a ledger entry (date given or today) and prints its id; it needs --claim, --source and --kind', async () => {
    const logged = await run(['idea', 'log', 'idea_0123456789', '--claim', '31 swaps in March', '--source', 'ward log', '--kind', 'metric', '--date', '2026-03-31', '--supersedes', 'E1']);
    expect(logged).toMatchObject({ code: 0, out: 'E2\n' });
    expect(JSON.parse(api.requests.at(-1)!.body)).toEqual({ claim: '31 swaps in March', source: 'ward log', kind: 'metric', date: '2026-03-31', supersedes: 'E1' });
    await run(['idea', 'log', 'idea_0123456789', '--claim', 'c', '--source', 's', '--kind', 'interview']);
    expect(JSON.parse(api.requests.at(-1)!.body).date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const missing = await run(['idea', 'log', 'idea_0123456789', '--claim', 'c']);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('idea log needs --source, --kind');
  });

  it('panel ID FILE posts the panel file with the idea by reference (the latest version, or --version), variables expanded and paths absolute; prints the run id', async () => {
    const first = await run(['idea', 'panel', 'idea_0123456789', 'panel.yaml']);
    expect(first.err).toBe('');
    expect(first).toMatchObject({ code: 0, out: 'run_panel1\n' });
    const post = api.requests.at(-1)!;
    expect([post.method, post.url]).toEqual(['POST', '/v1/runs']);
    expect(JSON.parse(post.body)).toEqual({
      project: 'swap-panel',
      workflow: 'panel',
      providers: { replay: { type: 'replay', cassette: path.join(dir, 'cassette.yaml') } },
      agents: { vc: { provider: 'replay', model: 'm' } },
      idea_ref: { id: 'idea_0123456789', version: 2 },
    });
    expect(await run(['idea', 'panel', 'idea_0123456789', 'panel.yaml', '--version', '1'])).toMatchObject({ code: 0 });
    expect(JSON.parse(api.requests.at(-1)!.body).idea_ref).toEqual({ id: 'idea_0123456789', version: 1 });
  });

  it('handoff ID --build FILE posts the build part (variables expanded, paths absolute) and --panel, and prints the run id alone; a NO-GO is the api\'s 409', async () => {
    const io = captureIo({ cwd: dir, env: { MODEL: 'claude-sonnet-4-5' } });
    const code = await runCli(['idea', 'handoff', 'idea_0123456789', '--build', 'build.yaml', '--panel', 'run_p1', '--api', api.url], io.io);
    expect(io.stderr()).toBe('');
    expect(code).toBe(0);
    expect(io.stdout()).toBe('run_build1\n');
    const post = api.requests.at(-1)!;
    expect([post.method, post.url]).toEqual(['POST', '/v1/ideas/idea_0123456789/handoff']);
    expect(JSON.parse(post.body)).toEqual({
      panel_run_id: 'run_p1',
      build: {
        project: 'swapboard',
        providers: { replay: { type: 'replay', cassette: path.join(dir, 'cassettes/build.yaml') } },
        agents: { proposer: { provider: 'replay', model: 'claude-sonnet-4-5' } },
        budget: { max_calls: 1 },
      },
    });
    // An unset variable fails here, naming it, before anything is posted.
    const unset = await run(['idea', 'handoff', 'idea_0123456789', '--build', 'build.yaml']);
    expect(unset.code).toBe(1);
    expect(unset.err).toContain('MODEL');
    // Without --panel the api picks the idea's latest done panel; --json prints the reply.
    const json = captureIo({ cwd: dir, env: { MODEL: 'm' } });
    expect(await runCli(['idea', 'handoff', 'idea_0123456789', '--build', 'build.yaml', '--json', '--api', api.url], json.io)).toBe(0);
    expect(JSON.parse(api.requests.at(-1)!.body).panel_run_id).toBeUndefined();
    expect(JSON.parse(json.stdout())).toMatchObject({ id: 'run_build1', handed_off_from: { recommendation: 'GO' } });

    const refused = captureIo({ cwd: dir, env: { MODEL: 'm' } });
    expect(await runCli(['idea', 'handoff', 'idea_0123456789', '--build', 'build.yaml', '--panel', 'run_nogo', '--api', api.url], refused.io)).toBe(1);
    expect(refused.stderr()).toContain('HTTP 409 handoff_refused: panel run_nogo said NO-GO');
    const before = api.requests.length;
    expect((await run(['idea', 'handoff', 'idea_0123456789'])).err).toContain('idea handoff needs --build FILE');
    expect(api.requests.length).toBe(before);
  });

  it("experiment ID FILE posts the experiment file (variables expanded, paths absolute) and --panel, prints the experiment, the run and the next step; a 409 is the api's", async () => {
    const io = captureIo({ cwd: dir, env: { MODEL: 'claude-sonnet-4-5' } });
    const code = await runCli(['idea', 'experiment', 'idea_0123456789', 'experiment.yaml', '--panel', 'run_p1', '--api', api.url], io.io);
    expect(io.stderr()).toBe('');
    expect(code).toBe(0);
    const post = api.requests.at(-1)!;
    expect([post.method, post.url]).toEqual(['POST', '/v1/ideas/idea_0123456789/experiment']);
    expect(JSON.parse(post.body)).toEqual({
      workflow: 'experiment',
      project: 'swapboard',
      repo: dir,
      domain: 'trading',
      providers: { replay: { type: 'replay', cassette: path.join(dir, 'cassettes/pass.yaml') } },
      proposer: { provider: 'replay', model: 'claude-sonnet-4-5' },
      interpreter: { provider: 'replay', model: 'm' },
      critic: { provider: 'replay', model: 'm' },
      panel_run_id: 'run_p1',
    });
    const lines = io.stdout().trimEnd().split('\n');
    expect(lines.slice(0, 2)).toEqual(['experiment exp_0123456789', 'run run_exp1']);
    expect(lines[2]).toContain(`roundtable approve run_exp1 --gate preregistration --api ${api.url}`);
    expect(lines[3]).toContain(`roundtable experiment show exp_0123456789 --api ${api.url}`);

    // Without --panel the api picks the idea's latest done panel; --json prints the reply.
    const json = captureIo({ cwd: dir });
    expect(await runCli(['idea', 'experiment', 'idea_0123456789', 'experiment.yaml', '--json', '--api', api.url], json.io)).toBe(0);
    expect(JSON.parse(api.requests.at(-1)!.body)).not.toHaveProperty('panel_run_id');
    expect(JSON.parse(json.stdout())).toEqual({ experiment_id: 'exp_0123456789', run_id: 'run_exp1' });

    const none = await run(['idea', 'experiment', 'idea_fresh', 'experiment.yaml']);
    expect(none.code).toBe(1);
    expect(none.err).toContain('HTTP 409 no_done_panel: idea idea_fresh has no done panel: run one first');
    const nothing = await run(['idea', 'experiment', 'idea_0123456789', 'experiment.yaml', '--panel', 'run_nogo']);
    expect(nothing.code).toBe(1);
    expect(nothing.err).toContain('HTTP 409 no_recommended_experiment: panel run run_nogo has no moderator synthesis');
    const before = api.requests.length;
    expect((await run(['idea', 'experiment', 'idea_0123456789'])).err).toContain('idea experiment needs <idea> <file>');
    expect((await run(['idea', 'experiment', 'idea_0123456789', 'missing.yaml'])).err).toContain('cannot read missing.yaml: no such file');
    expect(api.requests.length).toBe(before);
  });

  it('refuses an unknown action or a wrong count of arguments before calling the api', async () => {
    const before = api.requests.length;
    expect((await run(['idea', 'delete', 'idea_0123456789'])).err).toContain('unknown idea action delete');
    expect((await run(['idea', 'edit', 'idea_0123456789'])).err).toContain('idea edit needs <idea> <file>');
    expect((await run(['idea', 'diff', 'idea_0123456789', '1'])).err).toContain('idea diff needs <idea> <A> <B>');
    expect((await run(['idea', 'show', 'a', 'b', 'c', 'd'])).err).toContain('unexpected argument d for idea');
    expect(api.requests.length).toBe(before);
    const help = captureIo();
    expect(await runCli(['idea', '--help'], help.io)).toBe(0);
    expect(help.stdout()).toContain('Usage: roundtable idea <action> <target> [<second>] [<third>] [options]');
  });
});
