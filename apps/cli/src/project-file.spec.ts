import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { loadAnyProjectConfig, loadExperimentConfig } from '@roundtable/contracts';
import { expandProjectVariables, loadProjectFile, ProjectFileError, resolveConfigPaths } from './project-file';

const EXAMPLES = path.resolve(__dirname, '../../../examples');

/** The error a call throws (the test fails if it throws none). */
function thrown(fn: () => unknown): ProjectFileError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ProjectFileError) return err;
    throw err;
  }
  throw new Error('expected a ProjectFileError, nothing was thrown');
}

describe('project file paths', () => {
  it('resolves repo and replay cassettes against the file, leaving absolute paths and other providers alone', () => {
    const cfg = resolveConfigPaths(
      {
        repo: '../code',
        providers: {
          replay: { type: 'replay', cassette: 'cassettes/demo.yaml' },
          abs: { type: 'replay', cassette: '/abs/c.yaml' },
          home: { type: 'replay', cassette: '~/c.yaml' },
          api: { type: 'anthropic', cassette: 'not-a-replay.yaml' },
        },
      },
      '/projects/demo',
    );
    expect(cfg).toEqual({
      repo: '/projects/code',
      providers: {
        replay: { type: 'replay', cassette: '/projects/demo/cassettes/demo.yaml' },
        abs: { type: 'replay', cassette: '/abs/c.yaml' },
        home: { type: 'replay', cassette: path.join(homedir(), 'c.yaml') },
        api: { type: 'anthropic', cassette: 'not-a-replay.yaml' },
      },
    });
    expect(resolveConfigPaths({ project: { name: 'x', repo: 'src' } }, '/p')).toEqual({ project: { name: 'x', repo: '/p/src' } });
  });
});

describe('project file variables (the client expands them; the API expands none)', () => {
  it('expands ${VAR} and ${VAR:-default} in every string, nested and in lists, from the env it is given', () => {
    const cfg = expandProjectVariables(
      {
        project: 'p-${SUFFIX}',
        requirements: ['uses ${LIB:-numpy}', 'plain'],
        agents: { proposer: { provider: 'x', model: '${MODEL}', max_tokens: 10 } },
        autonomy: 2,
      },
      { SUFFIX: 'a', MODEL: 'claude-x', LIB: '' },
      'p.yaml',
    );
    // An empty variable counts as unset, so its default applies (as in a POSIX shell's :-).
    expect(cfg).toEqual({ project: 'p-a', requirements: ['uses numpy', 'plain'], agents: { proposer: { provider: 'x', model: 'claude-x', max_tokens: 10 } }, autonomy: 2 });
  });

  it('an unset variable without a default fails naming the variable and the field, every one at once', () => {
    const err = thrown(() =>
      expandProjectVariables({ agents: { critic: { model: '${CRITIC_MODEL}' } }, providers: { o: { type: 'ollama', host: '${OLLAMA_HOST}' } }, project: '${P:-ok}' }, { OTHER: '1' }, 'team.yaml'),
    );
    expect(err.message).toBe(
      [
        'team.yaml: not posted, a variable could not be expanded:',
        '  agents.critic.model: environment variable CRITIC_MODEL is not set (set it, or write ${CRITIC_MODEL:-default})',
        '  providers.o.host: environment variable OLLAMA_HOST is not set (set it, or write ${OLLAMA_HOST:-default})',
      ].join('\n'),
    );
    expect(err.issues.map((i) => i.path)).toEqual(['agents.critic.model', 'providers.o.host']);
  });

  it('reads only the env it is given: a variable of this process is not seen through an empty env', () => {
    expect(process.env.PATH).toBeTruthy();
    const err = thrown(() => expandProjectVariables({ objective: 'see ${PATH}' }, {}, 'p.yaml'));
    expect(err.issues).toEqual([{ path: 'objective', message: 'environment variable PATH is not set (set it, or write ${PATH:-default})' }]);
  });

  it('a "${" that is no variable, or that a value brought in, fails here instead of at the API', () => {
    for (const [value, env] of [
      ['${1}', {}],
      ['${not a name}', {}],
      ['unclosed ${X', { X: 'x' }],
      ['${NESTED}', { NESTED: '${SECRET}' }],
    ] as [string, Record<string, string>][]) {
      const err = thrown(() => expandProjectVariables({ agents: { p: { model: value } } }, env, 'p.yaml'));
      expect(err.issues).toEqual([{ path: 'agents.p.model', message: expect.stringContaining('still holds "${" after expansion') }]);
    }
    // A lone "$" or "{" is ordinary text.
    expect(expandProjectVariables({ objective: 'costs $5 {ok}' }, {}, 'p.yaml')).toEqual({ objective: 'costs $5 {ok}' });
  });

  describe('loadProjectFile', () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'rt-cli-pf-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('reads relative to the working directory and resolves against the file', () => {
      writeFileSync(path.join(dir, 'p.yaml'), 'project: demo\nproviders:\n  replay: { type: replay, cassette: c.yaml }\n');
      expect(loadProjectFile('p.yaml', dir, {})).toEqual({ project: 'demo', providers: { replay: { type: 'replay', cassette: path.join(dir, 'c.yaml') } } });
    });

    it('expands a path first, then resolves it against the file', () => {
      writeFileSync(
        path.join(dir, 'p.yaml'),
        ['project: demo', 'repo: "${CODE}/app"', 'providers:', '  replay: { type: replay, cassette: "${CASSETTES:-tapes}/demo.yaml" }', '  abs: { type: replay, cassette: "${ABS}" }', ''].join('\n'),
      );
      expect(loadProjectFile('p.yaml', dir, { CODE: '../code', ABS: '/srv/c.yaml' })).toEqual({
        project: 'demo',
        repo: path.resolve(dir, '../code/app'),
        providers: { replay: { type: 'replay', cassette: path.join(dir, 'tapes/demo.yaml') }, abs: { type: 'replay', cassette: '/srv/c.yaml' } },
      });
    });

    it('an unset variable stops it before anything is posted, naming the field', () => {
      writeFileSync(path.join(dir, 'p.yaml'), 'project: demo\nrepo: "${CODE}"\n');
      expect(() => loadProjectFile('p.yaml', dir, {})).toThrow(
        new ProjectFileError('p.yaml: not posted, a variable could not be expanded:\n  repo: environment variable CODE is not set (set it, or write ${CODE:-default})'),
      );
    });

    it('says what is wrong with a missing, broken or non-mapping file', () => {
      expect(() => loadProjectFile('nope.yaml', dir)).toThrow(new ProjectFileError('cannot read nope.yaml: no such file'));
      writeFileSync(path.join(dir, 'bad.yaml'), 'a: [1, 2\n');
      expect(() => loadProjectFile('bad.yaml', dir)).toThrow(new ProjectFileError('bad.yaml: line 1, column 4: malformed YAML: this "[" is never closed: a "]" is missing before the end of the file'));
      writeFileSync(path.join(dir, 'list.yaml'), '- a\n- b\n');
      expect(() => loadProjectFile('list.yaml', dir)).toThrow('list.yaml is not a YAML mapping (project, objective, providers, agents …)');
    });

    it('a brace left open points at where it was opened, the position said once (issue 22)', () => {
      const lines = ['project: demo', 'objective: o', 'requirements:', '  - r', 'providers:', '  replay: { type: replay, cassette: c.yaml }', 'agents:', '  proposer: { provider: replay, model: m }', '  critic: { provider: replay, model: m }', '  reviser: { provider: replay, model: m', 'test_command: pytest', ''];
      writeFileSync(path.join(dir, 'open.yaml'), lines.join('\n'));
      expect(() => loadProjectFile('open.yaml', dir)).toThrow(
        new ProjectFileError('open.yaml: line 10, column 12: malformed YAML: this "{" is never closed: a "}" is missing before line 11, column 1'),
      );
    });

    it('an unquoted variable inside { } gets the quoting hint', () => {
      writeFileSync(path.join(dir, 'flow.yaml'), 'project: demo\nagents:\n  p: { provider: x, model: ${MODEL} }\n');
      expect(() => loadProjectFile('flow.yaml', dir, { MODEL: 'm' })).toThrow(/^flow\.yaml: line 3, column \d+: malformed YAML: .*; inside \{ \} quote variables: "\$\{VAR\}"$/);
    });
  });
});

describe('the examples', () => {
  // Each example's project file, an experiment example's experiment files (issue 24), and an eval
  // example's configurations (issue 25: an eval-* directory's *.yaml but its cassettes).
  const isFile = (dir: string, f: string) => (dir.startsWith('eval-') ? /^[a-z-]+\.yaml$/.test(f) && !f.endsWith('.cassette.yaml') : /^(project|experiment-[a-z-]+)\.yaml$/.test(f));
  const projects = readdirSync(EXAMPLES, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'policy')
    .flatMap((d) => readdirSync(path.join(EXAMPLES, d.name)).filter((f) => isFile(d.name, f)).map((f) => path.join(EXAMPLES, d.name, f)));
  /** An eval's configuration is a project file without the task's fields: the eval gives them. */
  const withTask = (file: string, posted: Record<string, unknown>) => (path.basename(path.dirname(file)).startsWith('eval-') ? { ...posted, objective: 'a task', requirements: ['it works'] } : posted);

  it('every example directory has a project or experiment file', () => {
    const dirs = readdirSync(EXAMPLES, { withFileTypes: true }).filter((d) => d.isDirectory() && d.name !== 'policy');
    expect(new Set(projects.map((p) => path.basename(path.dirname(p))))).toEqual(new Set(dirs.map((d) => d.name)));
  });

  it.each(projects.map((p) => [path.relative(EXAMPLES, p), p]))('%s loads with no variable set and is a config the API accepts (no "${" left)', (_name, file) => {
    const posted = withTask(file, loadProjectFile(file, process.cwd(), {}));
    expect(JSON.stringify(posted)).not.toContain('${');
    // As the api reads it: variables refused; keys "set" so only the file itself is judged.
    const keys = { ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'k', XAI_API_KEY: 'k', GEMINI_API_KEY: 'k' };
    const cfg = posted.workflow === 'experiment' ? loadExperimentConfig(posted, { env: keys, variables: 'refuse' }) : loadAnyProjectConfig(posted, { env: keys, variables: 'refuse' });
    // What the file says is what was loaded: its project, workflow and providers.
    expect(cfg.project).toBe(posted.project);
    expect(cfg.project).toMatch(/\S/);
    expect(cfg.workflow).toBe(posted.workflow ?? 'build');
    expect(Object.keys(cfg.providers).sort()).toEqual(Object.keys(posted.providers as object).sort());
    expect(Object.keys(cfg.providers).length).toBeGreaterThan(0);
  });
});
