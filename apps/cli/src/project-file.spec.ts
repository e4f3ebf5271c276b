import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { loadProjectFile, ProjectFileError, resolveConfigPaths } from './project-file';

describe('project file paths', () => {
  it('resolves repo and replay cassettes against the file, leaving ${VAR}, absolute paths and other providers alone', () => {
    const cfg = resolveConfigPaths(
      {
        repo: '../code',
        providers: {
          replay: { type: 'replay', cassette: 'cassettes/demo.yaml' },
          abs: { type: 'replay', cassette: '/abs/c.yaml' },
          env: { type: 'replay', cassette: '${CASSETTE}' },
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
        env: { type: 'replay', cassette: '${CASSETTE}' },
        home: { type: 'replay', cassette: path.join(homedir(), 'c.yaml') },
        api: { type: 'anthropic', cassette: 'not-a-replay.yaml' },
      },
    });
    expect(resolveConfigPaths({ project: { name: 'x', repo: 'src' } }, '/p')).toEqual({ project: { name: 'x', repo: '/p/src' } });
  });

  describe('loadProjectFile', () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'rt-cli-pf-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('reads relative to the working directory and resolves against the file', () => {
      writeFileSync(path.join(dir, 'p.yaml'), 'project: demo\nproviders:\n  replay: { type: replay, cassette: c.yaml }\n');
      expect(loadProjectFile('p.yaml', dir)).toEqual({ project: 'demo', providers: { replay: { type: 'replay', cassette: path.join(dir, 'c.yaml') } } });
    });

    it('says what is wrong with a missing, broken or non-mapping file', () => {
      expect(() => loadProjectFile('nope.yaml', dir)).toThrow(new ProjectFileError('cannot read nope.yaml: no such file'));
      writeFileSync(path.join(dir, 'bad.yaml'), 'a: [1, 2\n');
      expect(() => loadProjectFile('bad.yaml', dir)).toThrow(/^bad\.yaml is not valid YAML: /);
      writeFileSync(path.join(dir, 'list.yaml'), '- a\n- b\n');
      expect(() => loadProjectFile('list.yaml', dir)).toThrow('list.yaml is not a YAML mapping (project, objective, providers, agents …)');
    });
  });
});
