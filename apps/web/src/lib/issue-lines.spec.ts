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

  it('gives no line when the file does not parse', () => {
    expect(locateIssues('a: [1, 2', [{ path: 'a', message: 'x' }])[0]).toEqual({ path: 'a', message: 'x', line: null, lineText: null });
  });
});
