import type { PanelProjectConfig } from '@roundtable/contracts';
import { emptyUsage } from '../engine/call-types';
import type { PanelRunState } from './panel-types';

/** The state of a panel run that has been created and not yet started (stage INIT, status queued). */
export function initialPanelState(runId: string, config: PanelProjectConfig): PanelRunState {
  return {
    runId,
    status: 'queued',
    stage: 'INIT',
    config,
    haltReason: null,
    roastRetries: 0,
    roastBatch: [],
    verdicts: [],
    debateRound: 0,
    turns: [],
    revoteBaseline: null,
    revotes: [],
    moderator: null,
    quality: null,
    lowConfidence: false,
    warnings: [],
    appeal: null,
    pending: {},
    phaseStartedAt: {},
    phaseSeconds: {},
    calls: [],
    usage: emptyUsage(),
    counters: {},
  };
}
