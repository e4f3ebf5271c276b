import { execFile, execFileSync } from 'node:child_process';
import path from 'node:path';
import { getJson, Pipeline, startPipeline, waitForTerminal } from '@roundtable/testing';

jest.setTimeout(240_000);

const REPO = path.resolve(__dirname, '../..');
const CLI = path.join(REPO, 'dist/apps/cli/main.js');
/** The evidence and judges the panel demo's cassette answers an appeal for (as test/e2e/panel.e2e-spec.ts). */
const APPEAL_EVIDENCE = 'RLDatix partner programme letter: Swapboard accepted as an integration partner with read-write roster API access from Q3';

interface TtyResult {
  code: number;
  /** Everything the terminal received, \r\n turned back into \n. */
  out: string;
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * A shell command under a real pseudo-terminal: util-linux `script` gives the command a PTY for its stdin,
 * stdout and stderr (so the CLI sees isTTY and draws colour, tables and redraws, as in a user's terminal),
 * `-e` returns its exit code, and `stty cols 80` fixes the width a table must fit.
 */
function underPty(shell: string, timeoutMs = 180_000): Promise<TtyResult> {
  return new Promise((resolve) => {
    // script runs the command with $SHELL: bash, for pipefail.
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', TERM: 'xterm', SHELL: '/bin/bash' };
    execFile('script', ['-qfec', `stty cols 80 rows 40; ${shell}`, '/dev/null'], { cwd: REPO, env, timeout: timeoutMs, maxBuffer: 20 * 1024 * 1024 }, (err, stdout) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      resolve({ code, out: stdout.replace(/\r\n/g, '\n') });
    });
  });
}

const cliCommand = (args: string[]): string => [process.execPath, CLI, ...args].map(quote).join(' ');
/** The visible text: colour codes and line redraws (\r, erase-line) taken out. */
const visible = (s: string): string => s.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').replace(/\r/g, '\n');

const hasScript = (() => {
  try {
    execFileSync('sh', ['-c', 'command -v script'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
})();

describe('the roundtable CLI in a terminal (a real PTY through util-linux script)', () => {
  let pipeline: Pipeline;
  let buildRun: string;
  let panelRun: string;

  beforeAll(async () => {
    if (!hasScript) throw new Error('util-linux `script` is needed for these tests (apt-get install bsdutils)');
    execFileSync(process.execPath, ['tools/build.mjs'], { cwd: REPO, stdio: 'pipe' });
    pipeline = await startPipeline();
    const submit = (file: string) => execFileSync(process.execPath, [CLI, 'run', file, '--api', pipeline.api], { cwd: REPO, encoding: 'utf8' });
    // Without --follow, `run` prints the run's id alone (RUN=$(roundtable run p.yaml)).
    buildRun = submit('examples/dd-demo/project.yaml').trim();
    panelRun = submit('examples/panel-demo/project.yaml').trim();
    expect([buildRun, panelRun]).toEqual([expect.stringMatching(/^run_\w+$/), expect.stringMatching(/^run_\w+$/)]);
    await Promise.all([waitForTerminal(pipeline, buildRun, 150_000), waitForTerminal(pipeline, panelRun, 150_000)]);
  });

  afterAll(async () => {
    await pipeline?.stop();
  });

  it('watch draws a finished run live from its first event, in colour, and exits as the run ended', async () => {
    const r = await underPty(cliCommand(['watch', buildRun, '--api', pipeline.api]));
    const text = visible(r.out);
    expect({ code: r.code, text }).toMatchObject({ code: 0 });
    // Colour and the in-place budget line: the renderer run --follow uses on a terminal.
    expect(r.out).toContain('\x1b[36m[PROPOSE]\x1b[39m proposer');
    expect(r.out).toContain('\r\x1b[2K');
    for (const stage of ['PROPOSE', 'CRITIQUE', 'REVISE', 'IMPLEMENT', 'FIX', 'REVIEW', 'SYNTHESIZE']) expect(text).toContain(`[${stage}]`);
    expect(text).toMatch(/\[DONE\] 8 calls, .* verdict: ACCEPT/);
    expect(text).toContain(`report: roundtable report ${buildRun}`);
    expect(text).not.toMatch(/event stream dropped|reconnecting/);
  });

  it("show on a panel run prints the judges' scores with their re-vote deltas, not build rounds", async () => {
    const r = await underPty(cliCommand(['show', panelRun, '--api', pipeline.api]));
    const text = visible(r.out);
    expect({ code: r.code, text }).toMatchObject({ code: 0 });
    expect(text).not.toMatch(/round \d+\/\d+, fix round/);
    expect(text).toMatch(/judges: +vc \d+(\.\d+)? \([+-±]\d/);
    for (const judge of ['engineer', 'pm', 'customer', 'competitor']) expect(text).toMatch(new RegExp(`\\b${judge} \\d`));
    expect(text).toMatch(/verdict: +ITERATE \(confidence \d\.\d\d\)/);
    expect(text).toContain('appeal:   possible');
  });

  it('calls on a terminal fits 80 columns and filters by a panel role and stage', async () => {
    const r = await underPty(cliCommand(['calls', panelRun, '--role', 'vc', '--stage', 'REVOTE', '--api', pipeline.api]));
    const lines = visible(r.out).trimEnd().split('\n');
    expect({ code: r.code, lines }).toMatchObject({ code: 0 });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^CALL +STAGE +ROLE/);
    expect(lines[1]).toMatch(/REVOTE +vc /);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
  });

  it('appeal --follow posts the evidence and draws the appeal until it ends; show then reports it', async () => {
    const r = await underPty(
      cliCommand(['appeal', panelRun, '--evidence', APPEAL_EVIDENCE, '--judge', 'engineer', '--judge', 'pm', '--follow', '--api', pipeline.api]),
    );
    const text = visible(r.out);
    expect({ code: r.code, text }).toMatchObject({ code: 0 });
    expect(text).toMatch(/\[APPEAL\] engineer/);
    expect(text).toMatch(/\[APPEAL\] pm/);
    expect(text).not.toMatch(/event stream dropped|reconnecting/);
    // The run's history before the appeal is not drawn again.
    expect(text).not.toContain('[ROAST]');
    const run = await getJson<{ panel: { appeal: { status: string; judges: string[] } | null } }>(pipeline.api, `/v1/runs/${panelRun}`);
    expect(run.body.panel.appeal).toEqual({ status: 'completed', judges: ['engineer', 'pm'] });
    const shown = visible((await underPty(cliCommand(['show', panelRun, '--api', pipeline.api]))).out);
    expect(shown).toContain('appeal:   completed (engineer, pm)');

    // watch from the first event goes through run_completed to the appeal's end, with no dropped stream.
    const watched = visible((await underPty(cliCommand(['watch', panelRun, '--api', pipeline.api]))).out);
    expect(watched).toContain('[ROAST]');
    expect(watched).toMatch(/\[APPEAL\] engineer/);
    expect(watched).not.toMatch(/event stream dropped|reconnecting/);
  });

  it('a closed pipe ends the CLI quietly: exit 0, no EPIPE stack', async () => {
    // The reader is gone before the CLI writes (`(exit 0)` exits at once); and `head -1` leaves after one line.
    for (const reader of ['(exit 0)', 'head -1']) {
      const r = await underPty(`set -o pipefail; ${cliCommand(['call-show', `${buildRun}/I1`, '--api', pipeline.api])} | ${reader}`);
      expect({ reader, code: r.code, out: r.out }).toMatchObject({ code: 0 });
      expect(r.out).not.toMatch(/EPIPE|Error|at .*main\.js/);
    }
    const head = await underPty(`${cliCommand(['runs', '--api', pipeline.api])} | head -1`);
    expect(visible(head.out).trimEnd().split('\n')).toHaveLength(1);
  });
});
