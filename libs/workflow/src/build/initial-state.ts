import type { ProjectConfig } from '@roundtable/contracts';
import { emptyUsage } from '../engine/call-types';
import type { BuildRunState } from './build-types';


/** The state of a run that has been created and not yet started (stage INIT, status queued). */
export function initialBuildState(runId: string, config: ProjectConfig): BuildRunState {
  return {
    runId,
    status: 'queued',
    stage: 'INIT',
    round: 0,
    fixRound: 0,
    criteria: null,
    unresolved: false,
    haltReason: null,
    config,
    workspace: { path: null, tree: [] },
    proposals: [],
    critiques: [],
    implementations: [],
    testRuns: [],
    synthesis: null,
    openQuestions: [],
    usage: emptyUsage(),
    counters: {},
  };
}
