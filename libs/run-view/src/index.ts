export * from './run-view';
export { emptyRunView, emptyPanelView } from './empty-run-view';
export { foldRunEvent, foldRunEvents } from './fold-run-event';
export { PANEL_EVENT_TYPES } from './fold-panel-event';
export { JUDGE_ORDER } from './judge-order';
export * from './run-view-queries';
export { endsStream, STREAM_END_TYPES } from './stream-end';
export { ENDED_RUN_STATUSES, isEndedStatus, RUN_STATUSES } from './run-statuses';
export { isLiveOnly, LIVE_ONLY_TYPES } from './live-only-events';
