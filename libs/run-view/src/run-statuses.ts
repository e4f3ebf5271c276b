import type { RunStatus } from '@roundtable/contracts';

/**
 * The contracts' RunStatus values and TERMINAL_RUN_STATUSES, restated once here so that the
 * browser bundle and the CLI's start load no zod (run-statuses.spec.ts holds them equal to the
 * contracts'). The workbench and the CLI read them from here; server code reads the contracts'.
 */
export const RUN_STATUSES: readonly RunStatus[] = ['queued', 'running', 'awaiting_approval', 'done', 'halted', 'needs_input', 'cancelled', 'failed'];

/** Where a run stops on its own: it may still be resumed, or a panel appealed. */
export const ENDED_RUN_STATUSES: readonly RunStatus[] = ['done', 'halted', 'needs_input', 'cancelled', 'failed'];

export const isEndedStatus = (status: string | null | undefined): boolean =>
  // Stryker disable next-line ConditionalExpression: the typeof guard only narrows the type, includes() is false for null and undefined too (`false` is killed)
  typeof status === 'string' && (ENDED_RUN_STATUSES as readonly string[]).includes(status);
