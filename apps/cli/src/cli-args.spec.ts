import { DEFAULT_API, intOption, parseCli, resumeBody, UsageError } from './cli-args';

describe('parseCli', () => {
  it('finds the command and its arguments, with global options before or after it', () => {
    expect(parseCli(['--api', 'http://h:1/', 'run', 'p.yaml', '--follow', '--json'])).toEqual({
      command: 'run',
      args: { 'project.yaml': 'p.yaml' },
      options: { follow: true },
      api: 'http://h:1',
      token: undefined,
      json: true,
      help: false,
    });
    expect(parseCli(['calls', 'run_1', '--role', 'critic', '--stage=CRITIQUE', '--failed', '--token', 't'])).toMatchObject({
      command: 'calls',
      args: { run: 'run_1' },
      options: { role: 'critic', stage: 'CRITIQUE', failed: true },
      token: 't',
    });
    expect(parseCli(['run', '-f', 'p.yaml']).options).toEqual({ follow: true });
  });

  it('takes the address and token from the environment, flags winning', () => {
    const env = { ROUNDTABLE_API: 'http://api.example:8080', ROUNDTABLE_TOKEN: 'from-env' };
    expect(parseCli(['runs'], env)).toMatchObject({ api: 'http://api.example:8080', token: 'from-env' });
    expect(parseCli(['runs', '--api', 'http://other:1', '--token', 'flag'], env)).toMatchObject({ api: 'http://other:1', token: 'flag' });
    expect(parseCli(['runs'], {})).toMatchObject({ api: DEFAULT_API, token: undefined });
  });

  it('help: --help anywhere, `help <command>`, and no command at all', () => {
    expect(parseCli(['--help'])).toMatchObject({ command: null, help: true });
    expect(parseCli(['resume', '-h'])).toMatchObject({ command: 'resume', help: true });
    // Missing arguments do not matter when help is asked for.
    expect(parseCli(['show', '--help'])).toMatchObject({ command: 'show', help: true });
    expect(parseCli(['help', 'calls'])).toMatchObject({ command: 'calls', help: true });
    expect(parseCli([])).toMatchObject({ command: null, help: false });
  });

  it.each([
    [['bogus'], 'unknown command bogus'],
    [['show'], 'show needs <run>'],
    [['show', 'a', 'b'], 'unexpected argument b for show'],
    [['show', 'a', '--follow'], "unknown option '--follow'"],
    [['runs', '--status'], "option '--status <value>' argument missing"],
    [['runs', '--api', 'localhost:3000'], '--api must be an http(s) URL, e.g. http://127.0.0.1:3000 (got localhost:3000)'],
    [['help', 'nope'], 'unknown command nope'],
  ])('%j is a usage error: %s', (argv, message) => {
    const err = (() => {
      try {
        parseCli(argv);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe(message);
  });
});

describe('option values', () => {
  it('intOption accepts whole numbers at or above the minimum', () => {
    expect(intOption({ n: '12' }, 'n')).toBe(12);
    expect(intOption({ n: '0' }, 'n', 0)).toBe(0);
    expect(intOption({}, 'n')).toBeUndefined();
    expect(() => intOption({ n: '0' }, 'n')).toThrow('--n needs a whole number of at least 1, got 0');
    expect(() => intOption({ n: '1.5' }, 'n')).toThrow(UsageError);
    expect(() => intOption({ n: '-3' }, 'n', 0)).toThrow('--n needs a whole number (0 or more), got -3');
  });

  it('resumeBody sends the stage upper-cased and only the caps that were given', () => {
    expect(resumeBody({})).toEqual({});
    expect(resumeBody({ from: 'critique' })).toEqual({ from: 'CRITIQUE' });
    expect(resumeBody({ 'max-calls': '20', 'max-cost-usd': '7.5', 'max-fix-rounds': '0' })).toEqual({
      caps: { max_calls: 20, max_cost_usd: 7.5, max_fix_rounds: 0 },
    });
    expect(
      resumeBody({ 'max-tokens': '300000', 'max-seconds': '1200', 'max-rounds': '4', from: 'IMPLEMENT' }),
    ).toEqual({ from: 'IMPLEMENT', caps: { max_tokens: 300000, max_seconds: 1200, max_rounds: 4 } });
    expect(() => resumeBody({ 'max-cost-usd': '0' })).toThrow('--max-cost-usd needs a positive number, got 0');
    expect(() => resumeBody({ 'max-calls': 'lots' })).toThrow(UsageError);
  });
});
