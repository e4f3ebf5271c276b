/**
 * Where the api accepts a resume, by workflow: libs/workflow's WORKFLOWS[name].resumable,
 * restated because the browser bundle takes no zod (resumable-statuses.spec.ts holds the two
 * equal). Never cancelled, and a panel only once halted: the api answers 409 elsewhere, so the
 * workbench must not offer it there.
 */
export const RESUMABLE_BY_WORKFLOW = {
  build: ['halted', 'needs_input', 'failed'],
  panel: ['halted'],
  experiment: ['halted'],
} as const satisfies Record<string, readonly string[]>;
