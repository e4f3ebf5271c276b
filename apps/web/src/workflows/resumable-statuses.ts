import { RESUMABLE_RUN_STATUSES } from '@roundtable/run-view';

/**
 * Where the api accepts a resume (apps/api run-control.service.ts RESUMABLE_STATUSES, through
 * run-view's zod-free copy): a run stopped short of done with its records kept. Not cancelled:
 * the api answers 409 there, so the workbench must not offer it.
 */
export const RESUMABLE: ReadonlySet<string> = new Set(RESUMABLE_RUN_STATUSES);
