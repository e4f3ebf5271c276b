import { readFileSync } from 'node:fs';
import { loadAnyProjectConfig, ProjectConfigError } from '@roundtable/contracts';
import { locateIssues } from './issue-lines';

const yaml = [
  'name: dd-demo',
  'workflow: build',
  'roles:',
  '  proposer:',
  '    provider: nope',
  '    model: m1',
  'requirements:',
  '  - first',
  '  - second',
].join('\n');

describe('locateIssues', () => {
  it('points a nested map path at its key line', () => {
    const [i] = locateIssues(yaml, [{ path: 'roles.proposer.provider', message: 'unknown provider nope' }]);
    expect(i).toEqual({ path: 'roles.proposer.provider', message: 'unknown provider nope', line: 5, lineText: '    provider: nope' });
  });

  it('points a list index at its item', () => {
    expect(locateIssues(yaml, [{ path: 'requirements.1', message: 'x' }])[0].line).toBe(9);
  });

  it('points a missing field at the deepest part that exists', () => {
    expect(locateIssues(yaml, [{ path: 'roles.proposer.temperature', message: 'x' }])[0].line).toBe(4);
    expect(locateIssues(yaml, [{ path: 'budget.max_calls', message: 'x' }])[0].line).toBe(1);
  });

  it('reads JSON too', () => {
    const json = '{\n  "name": "x",\n  "roles": {\n    "critic": { "provider": "p" }\n  }\n}';
    expect(locateIssues(json, [{ path: 'roles.critic.provider', message: 'x' }])[0].line).toBe(4);
  });

  it("shows a syntax error at the line the api's message names, the line where the brace was opened (issue 22)", () => {
    const text = ['project: demo', 'agents:', '  critic: { provider: p, model: m', 'test_command: pytest'].join('\n');
    let issues: { path: string; message: string }[] = [];
    try {
      loadAnyProjectConfig(text, { env: {}, variables: 'refuse' });
    } catch (e) {
      issues = (e as ProjectConfigError).issues;
    }
    expect(locateIssues(text, issues)).toEqual([
      {
        path: '',
        message: 'line 3, column 11: malformed YAML: this "{" is never closed: a "}" is missing before line 4, column 1',
        line: 3,
        lineText: '  critic: { provider: p, model: m',
      },
    ]);
  });

  it('gives no line when the file does not parse', () => {
    expect(locateIssues('a: [1, 2', [{ path: 'a', message: 'x' }])[0]).toEqual({ path: 'a', message: 'x', line: null, lineText: null });
  });
});

describe('locateIssues with the issues the api sends', () => {
  // The api validates with the contracts' loader (apps/api run-submission.service.ts): its issue paths are what the page maps.
  const demo = readFileSync(`${__dirname}/../../../../examples/dd-demo/project.yaml`, 'utf8');
  const issuesOf = (text: string) => {
    try {
      loadAnyProjectConfig(text, { env: {}, variables: 'refuse' });
    } catch (e) {
      if (e instanceof ProjectConfigError) return e.issues;
      throw e;
    }
    throw new Error('the config was valid');
  };
  const lineOf = (text: string, re: RegExp) => text.split('\n').findIndex((l) => re.test(l)) + 1;

  it('puts a wrong provider name at its agent line', () => {
    const text = demo.replace(/(proposer:\s*\{\s*provider:\s*)replay/, '$1nowhere');
    const located = locateIssues(text, issuesOf(text)).find((i) => i.path === 'agents.proposer.provider');
    expect(located?.line).toBe(lineOf(text, /^\s*proposer:/));
  });

  it('puts a misspelt field at its own line, not at the object holding it', () => {
    const text = demo.replace(/^on_unresolved:/m, 'on_unresolvd:');
    const located = locateIssues(text, issuesOf(text)).find((i) => i.message.includes('on_unresolvd'));
    expect(located?.line).toBe(lineOf(text, /^on_unresolvd:/));
  });

  it('puts a bad list item at its line', () => {
    const text = demo.replace('  - "Handles a series that ends at its trough"', '  - { text: 1 }');
    const located = locateIssues(text, issuesOf(text)).find((i) => i.path === 'requirements.1');
    expect(located?.line).toBe(lineOf(text, /- \{ text: 1 \}/));
  });
});
