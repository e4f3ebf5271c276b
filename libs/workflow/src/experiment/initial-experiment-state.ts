import type { ExperimentRunConfig } from '@roundtable/contracts';
import { emptyUsage } from '../engine/call-types';
import type { ExperimentRunState } from './experiment-types';

/** The state of an experiment run that has been created and not yet started: a preregistered one holds its preregistration already. */
export function initialExperimentState(runId: string, config: ExperimentRunConfig): ExperimentRunState {
  return {
    runId,
    status: 'queued',
    stage: 'INIT',
    config,
    haltReason: null,
    usage: emptyUsage(),
    counters: {},
    gate: null,
    approvals: [],
    openQuestions: [],
    preregistration: config.preregistration ?? null,
    draft: null,
    methodOp: null,
    result: null,
    interpretation: null,
    review: null,
    pending: null,
    outcome: null,
  };
}
