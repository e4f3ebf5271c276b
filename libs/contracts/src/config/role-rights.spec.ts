import { API_TOKEN_ROLES } from './api-token-entry';
import { roleMayApprove, roleMayOpenBoard, roleMayWrite, roleSeesEveryTeam } from './role-rights';

describe('role rights (issue 26)', () => {
  it('gives each role its rights: read < write < approve in a team; ops writes and opens the board; admin may all, on every team', () => {
    const table = Object.fromEntries(API_TOKEN_ROLES.map((r) => [r, [roleMayWrite(r), roleMayApprove(r), roleMayOpenBoard(r), roleSeesEveryTeam(r)]]));
    expect(table).toEqual({
      read: [false, false, false, false],
      write: [true, false, false, false],
      approve: [true, true, false, false],
      ops: [true, false, true, false],
      admin: [true, true, true, true],
    });
  });
});
