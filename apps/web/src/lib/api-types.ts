/**
 * The api's reply shapes the workbench reads, restated as plain types: the api's own are zod
 * schemas (apps/api/src/openapi/api-replies.schema.ts, run-records.schema.ts), which the browser
 * bundle must not load. Field names are the api's, snake_case; only what the pages show is here.
 */
import type { AcceptanceCriterion, JudgeRole } from '@roundtable/contracts';

export type TokenRole = 'read' | 'write' | 'open';
export interface Me {
  name: string | null;
  role: TokenRole;
}

export interface ApiErrorBody {
  error: string;
  message: string;
  issues?: { path: string; message: string }[];
}

export interface RunListItem {
  id: string;
  project: string;
  workflow: string;
  status: string;
  stage: string;
  verdict: string | null;
  created_at: string | null;
  finished_at: string | null;
  usage: { calls: number; tokens: number; cost_usd: number | null };
}

export interface RunCaps {
  max_calls: number | null;
  max_tokens: number | null;
  max_cost_usd: number | null;
  max_seconds: number | null;
  max_rounds: number | null;
  max_fix_rounds: number | null;
  per_provider: Record<string, Record<string, number | null | undefined>>;
}

export interface RunDetail extends Omit<RunListItem, 'usage'> {
  round: number;
  fix_round: number;
  confidence: number | null;
  halt_reason: string | null;
  criteria: AcceptanceCriterion[] | null;
  started_at: string | null;
  usage: {
    calls: number;
    failed_calls: number;
    input_tokens: number;
    output_tokens: number;
    tokens: number;
    cost_usd: number | null;
    unpriced_calls: number;
    seconds: number | null;
  };
  caps: RunCaps;
  panel?: { can_appeal: true | string; appeal: { status: string; judges: JudgeRole[] } | null };
}

export interface CallDetail {
  id: string;
  run_id: string;
  seq: number;
  stage: string;
  role: string;
  provider: string;
  model: string;
  label: string | null;
  attempt: number;
  retry: number;
  retry_of: string | null;
  repair_of: string | null;
  status: string;
  valid: boolean | null;
  error: string | null;
  error_code: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cached_input_tokens: number | null;
  cost_usd: number | null;
  cost_source: string | null;
  latency_ms: number | null;
  schema_name: string | null;
  schema: Record<string, unknown> | null;
  messages: { role: string; content: string }[];
  response_text: string | null;
  parsed: unknown;
  argv: string[] | null;
  billing: string | null;
  request_id: string | null;
  max_tokens: number | null;
  temperature: number | null;
  timeout_ms: number | null;
  created_at: string | null;
  started_at: string | null;
  finished_at: string | null;
}

export interface Problem {
  severity: string;
  description: string;
  location: string | null;
}

export interface ProposalItem {
  label: string;
  call_id: string;
  round: number;
  revision_of: string | null;
  status: string;
  claim: string;
  approach: string;
  assumptions: string[];
  evidence: string[];
  risks: string[];
  tests_required: string[];
  responses_to_criticism: { problem: string; action: string; reason: string }[];
  confidence: number;
}

export interface CritiqueItem {
  label: string;
  call_id: string;
  target_label: string;
  verdict: string;
  problems: Problem[];
  counterarguments: string[];
  tests_required: string[];
  confidence: number;
}

export interface ReviewItem {
  label: string;
  call_id: string;
  target_label: string;
  verdict: string;
  requirement_checks: { requirement: string; satisfied: boolean; evidence: string }[];
  problems: Problem[];
  confidence: number;
}

export interface ImplementationItem {
  label: string;
  call_id: string;
  proposal_label: string;
  fix_round: number;
  status: string;
  apply_error: string | null;
  files: { path: string; bytes: number }[];
  deleted: string[];
  test_command: string;
  notes: string;
  assumptions: string[];
  known_gaps: string[];
  commit: { branch: string; commit: string; base_commit: string } | null;
}

export interface TestRunItem {
  label: string;
  implementation_label: string;
  command: string;
  exit_code: number;
  passed: number;
  failed: number;
  errors: number;
  duration_s: number;
  timed_out: boolean;
  output_tail: string;
}

export interface DisagreementItem {
  topic: string;
  positions: { agent_role: string; position: string }[];
  resolved: boolean;
  resolution: string | null;
}

export interface BuildRecords {
  workflow: 'build';
  acceptance_criteria: AcceptanceCriterion[] | null;
  proposals: ProposalItem[];
  critiques: CritiqueItem[];
  implementations: ImplementationItem[];
  test_runs: TestRunItem[];
  reviews: ReviewItem[];
  synthesis: {
    label: string;
    partial: boolean;
    what_was_built: string | null;
    test_summary: string | null;
    remaining_risks: string[];
    overall_verdict: string | null;
    confidence: number | null;
  } | null;
  disagreements: DisagreementItem[];
  open_questions: { role: string; question: string }[];
}

export interface JudgeVerdictItem {
  label: string;
  call_id: string;
  attempt: number;
  score: number;
  stance: string;
  top_concerns: string[];
  evidence: string[];
  what_would_change_my_mind: string;
  confidence: number;
}

export interface RescoreItem {
  label: string;
  call_id: string;
  judge: JudgeRole;
  previous: number;
  requested: number;
  score: number;
  delta: number;
  capped: boolean;
  changed: boolean;
  change_reason: string | null;
  confidence: number;
}

export interface PanelRecords {
  workflow: 'panel';
  idea: { title: string; description: string; target_user: string; evidence: string[] };
  judges: {
    judge: JudgeRole;
    score: number | null;
    verdict: JudgeVerdictItem | null;
    earlier_verdicts: JudgeVerdictItem[];
    weak: boolean;
    generic_rate: number | null;
    duplicate_concerns: [string, string][];
  }[];
  quality: { status: string; max_jaccard: number; weak_judges: JudgeRole[]; reasons: string[] } | null;
  low_confidence: boolean;
  warnings: { kind: string; detail: string; judges: JudgeRole[] }[];
  debate: { label: string; call_id: string; speaker: JudgeRole; round: number; message: string; responds_to: string[] }[];
  revote: { baseline: Partial<Record<JudgeRole, number>>; rescores: RescoreItem[] } | null;
  moderator: {
    label: string;
    partial: boolean;
    overall_recommendation: string | null;
    confidence: number | null;
    top_strengths: string[];
    top_risks: string[];
    top_problems: string[];
    biggest_disagreement: string | null;
    recommended_experiment: string | null;
  } | null;
  appeal: { status: string; evidence: string[]; judges: JudgeRole[]; previous: Partial<Record<JudgeRole, number>>; rescores: RescoreItem[] } | null;
}

export type RunRecords = BuildRecords | PanelRecords;
