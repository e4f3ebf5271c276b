import type { RunView } from '@roundtable/run-view';
import type { ReactNode } from 'react';
import type { CapName } from '../lib/act-requests';
import type { RunTab } from '../lib/route';
import type { RunDetail, RunRecords } from '../lib/api-types';
import type { CompareRow } from '../lib/compare';
import type { Async } from '../components/use-async';

/** What the run page hands a workflow's sections. */
export interface SectionsProps {
  view: RunView;
  /** GET /v1/runs/:id/records once loaded, and only when they are this workflow's (the page checks them against `name`). */
  records: RunRecords | null;
  runId: string;
  /** The run branch's diff, once the run has ended (a workflow with hasDiff only). */
  diff: Async<string> | null;
}

/** One of the run page's tabs that only this workflow has (between Calls and Report). */
export interface WebTab {
  id: RunTab;
  /** The tab's accessible name. */
  label: string;
  Panel: (props: SectionsProps) => ReactNode;
}

/** Resume in the Act list. */
export interface WebResume {
  /** The statuses the api accepts a resume on (its RESUMABLE_STATUSES; never cancelled: a 409). */
  statuses: ReadonlySet<string>;
  /** The stages a resume may restart from (the form's "From stage"); null: where it stopped, no choice. */
  fromStages: readonly string[] | null;
}

/**
 * Everything the workbench does differently for one workflow, so that the page asks the run's
 * workflow (findWebWorkflow) instead of comparing `view.workflow` with a name.
 */
export interface WebWorkflow {
  /** The run's `workflow` this entry is for (its records carry the same name). */
  name: string;
  /** The run page's tabs for this workflow's records, in order (between Calls and Report). */
  tabs: readonly WebTab[];
  /** The run writes a branch, so the page fetches its diff once it has ended. */
  hasDiff: boolean;
  /** The caps this workflow counts: the Budget's lines and what the act forms may raise. */
  caps: readonly CapName[];
  /** Resume in the Act list, or null: the api refuses a resume of this workflow's runs. */
  resume: WebResume | null;
  /** Appeal in the Act list, on a done run. */
  appeal: boolean;
  /** The Fork form offers the run's objective and requirements to edit (a panel's idea is not those fields: its edits are YAML). */
  forkEditsInputs: boolean;
  /** The Act list offers Fork on an ended run (the api refuses a fork of an experiment's run: its result is stored once). */
  fork: boolean;
  /** It judges an idea: an idea page runs it on a worksheet version (its project file takes `idea_ref`, issue 23). */
  judgesIdeas: boolean;
  /**
   * Rows of its own on the compare page (scores, rounds, tests …), from the run's detail and its
   * records (null until loaded, or when they are not this workflow's: the page checks). Absent:
   * the page shows the verdict, usage and calls every workflow has.
   */
  compareRows?: (run: RunDetail, records: RunRecords | null) => CompareRow[];
}
