import { JUDGE_ORDER } from './judge-order';
import type { BuildView, JudgeCard, PanelView, RunView } from './run-view';

const emptyBuild = (): BuildView => ({
  proposals: [],
  critiques: [],
  criteria: null,
  implementations: [],
  fileRequests: [],
  fileReads: [],
  toolTurns: [],
  tests: [],
  reviews: [],
  synthesis: null,
});

/** A run nothing is known of yet: fold its envelopes into this. */
export function emptyRunView(runId: string | null = null): RunView {
  return {
    runId,
    lastSequence: 0,
    project: null,
    workflow: null,
    status: 'unknown',
    stage: null,
    stages: [],
    calls: [],
    usage: { calls: 0, failedCalls: 0, tokens: 0, costUsd: null, unpricedCalls: 0 },
    caps: null,
    workspace: null,
    startedAt: null,
    lastEventAt: null,
    verdict: null,
    confidence: null,
    endReason: null,
    halts: [],
    resumes: [],
    openQuestions: [],
    notices: [],
    build: emptyBuild(),
    people: { gate: null, decisions: [], answers: [], merge: null },
    panel: null,
    experiment: null,
  };
}

const waitingJudge = (judge: JudgeCard['judge']): JudgeCard => ({
  judge,
  state: 'waiting',
  verdict: null,
  score: null,
  revote: null,
  weak: false,
  genericRate: null,
});

export function emptyPanelView(): PanelView {
  return {
    judges: JUDGE_ORDER.map(waitingJudge),
    dispatches: [],
    roast: null,
    retries: [],
    debate: [],
    revoteBaseline: null,
    moderator: null,
    metrics: null,
    completion: null,
    appeals: [],
  };
}
