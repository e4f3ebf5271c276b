import { WORKFLOWS } from '@roundtable/workflow';
import { RESUMABLE_BY_WORKFLOW } from './resumable-statuses';

describe("the workbench's resumable statuses", () => {
  it('are, for every workflow, exactly those the api accepts a resume on', () => {
    expect(Object.keys(RESUMABLE_BY_WORKFLOW).sort()).toEqual(Object.keys(WORKFLOWS).sort());
    for (const [name, module] of Object.entries(WORKFLOWS)) expect(RESUMABLE_BY_WORKFLOW[name as keyof typeof WORKFLOWS]).toEqual(module.resumable);
  });

  it('never offer a resume on a cancelled or done run', () => {
    for (const statuses of Object.values(RESUMABLE_BY_WORKFLOW)) expect(statuses).not.toEqual(expect.arrayContaining(['cancelled']));
    for (const statuses of Object.values(RESUMABLE_BY_WORKFLOW)) expect(statuses).not.toEqual(expect.arrayContaining(['done']));
  });
});
