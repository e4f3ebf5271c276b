import type { RunView } from './run-view';

/** The caps after a resume or an appeal raised `raised` (the caps it names); with run_created's unknown, they stay unknown. */
export function raisedCaps(caps: RunView['caps'], raised: Record<string, number> | undefined): RunView['caps'] {
  return caps && raised && Object.keys(raised).length ? { ...caps, ...raised } : caps;
}
