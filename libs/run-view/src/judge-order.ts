import type { JudgeRole } from '@roundtable/contracts';

/**
 * The panel's five judges in the fixed debate speaker order: the contracts' JudgeRole, restated
 * here so that neither the browser bundle nor the CLI's start loads zod and every schema (a spec
 * holds the two equal).
 */
export const JUDGE_ORDER: readonly JudgeRole[] = ['vc', 'engineer', 'pm', 'customer', 'competitor'];
