import { OperatorPolicy } from '@roundtable/contracts';
import { cliUserFor, describeCliUser } from './cli-user';

describe('cliUserFor', () => {
  const policy = OperatorPolicy.parse({ cli: { run_as: { uid: 2000, gid: 2001 } } });

  it('root: the policy\'s run_as user, whatever allow_same_user says', () => {
    expect(cliUserFor(policy, 0)).toEqual({ ok: true, user: { kind: 'run_as', uid: 2000, gid: 2001 } });
    expect(cliUserFor(OperatorPolicy.parse({ cli: { allow_same_user: true } }), 0)).toEqual({ ok: true, user: { kind: 'run_as', uid: 65534, gid: 65534 } });
  });

  it('not root: refused unless allow_same_user, and the start line says which', () => {
    const refused = cliUserFor(policy, 1000);
    expect(refused).toMatchObject({ ok: false, message: expect.stringContaining('(cli.allow_same_user: false)') });
    expect(describeCliUser(refused)).toMatch(/^CLI providers are refused: /);
    const same = cliUserFor(OperatorPolicy.parse({ cli: { allow_same_user: true } }), 1000);
    expect(same).toEqual({ ok: true, user: { kind: 'same_user', uid: 1000 } });
    expect(describeCliUser(same)).toMatch(/CAN read this worker's environment/);
  });
});
