import type { RunEventEnvelope } from '@roundtable/contracts';
import { experimentLines } from './experiment-lines';
import { panelLines } from './panel-lines';
import type { Style } from './terminal';

/** What `run --follow` prints differently for one workflow. */
interface CliWorkflow {
  /** run_created's header names the workflow (not the build's: it is the default). */
  namedInHeader: boolean;
  /** run_started prints the [INIT] line of where the workspace came from (a panel has no workspace). */
  workspaceLine: boolean;
  /** The lines of the workflow's own events; null: not one of its events. */
  lines?: (ev: RunEventEnvelope, s: Style) => string[] | null;
}

/**
 * The CLI's workflow registry, by the run's `workflow`: the one place in apps/cli that names
 * workflows (the lint rule in eslint.config.mjs holds the rest of apps/cli to it).
 */
const CLI_WORKFLOWS: Readonly<Record<string, CliWorkflow>> = {
  build: { namedInHeader: false, workspaceLine: true },
  panel: { namedInHeader: true, workspaceLine: false, lines: panelLines },
  experiment: { namedInHeader: true, workspaceLine: false, lines: experimentLines },
};

/** The workflow of that name, or undefined (none yet, or one this version does not know). */
export function findCliWorkflow(name: string | null | undefined): CliWorkflow | undefined {
  return name && Object.hasOwn(CLI_WORKFLOWS, name) ? CLI_WORKFLOWS[name] : undefined;
}

/** The lines of a workflow's own event, whichever workflow's it is (event types are unique across workflows); null: none's. */
export function workflowLines(ev: RunEventEnvelope, s: Style): string[] | null {
  for (const w of Object.values(CLI_WORKFLOWS)) {
    const lines = w.lines?.(ev, s);
    if (lines) return lines;
  }
  return null;
}
