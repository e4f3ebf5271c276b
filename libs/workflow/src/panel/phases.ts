import type { PanelStep } from './panel-step';
import type { PanelPhase } from './panel-types';

/** Phase clocks for run_metrics: wall-clock seconds come from usage.elapsedSeconds (the workflow has no clock). */

export function enterPhase(step: PanelStep, phase: PanelPhase): void {
  closePhases(step);
  step.state.phaseStartedAt[phase] = step.state.usage.elapsedSeconds;
}

export function closePhases(step: PanelStep): void {
  for (const [phase, started] of Object.entries(step.state.phaseStartedAt) as [PanelPhase, number][]) {
    if (step.state.phaseSeconds[phase] === undefined) step.state.phaseSeconds[phase] = Math.max(0, step.state.usage.elapsedSeconds - started);
  }
}
