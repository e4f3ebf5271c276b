import type { ApiErrorBody, BiasAudit, CallDetail, CallSummary, EvalDetail, EvalListItem, EvidenceEntry, ExampleProject, ExperimentDetail, ExperimentList, ExperimentStarted, IdeaDetail, IdeaDiff, IdeaListItem, IdeaVersionDetail, Me, PlaygroundCall, RunDetail, RunListItem, RunRecords, WorkflowSummary } from './api-types';

/** A reply the api refused: its status and, when it sent one, its JSON error body. */
export class ApiHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody | null,
  ) {
    super(body?.message ?? `the api answered ${status}`);
  }
}

/** GET /v1/runs's parameters, as the workbench sends them. */
export interface RunsQuery {
  q?: string;
  status?: string;
  workflow?: string;
  from?: string;
  to?: string;
  cursor?: string;
  limit?: number;
}

export interface RunsPage {
  runs: RunListItem[];
  nextCursor: string | null;
}

export interface ApiClientOptions {
  token: () => string | null;
  /** Called on every 401 before the error is thrown: the app clears the token and asks again. */
  onUnauthorized: () => void;
  fetch?: typeof fetch;
  base?: string;
}

/** A project file as the api takes it: JSON text as JSON, anything else as YAML text (apps/api body-parsers.ts). */
export function projectFileContentType(text: string): 'application/json' | 'text/yaml' {
  return /^\s*\{/.test(text) ? 'application/json' : 'text/yaml';
}

/**
 * Every call the workbench makes to the api, each with the tab's bearer token. Replies that are
 * not 2xx become ApiHttpError; a 401 also tells the app, whatever page made the call.
 */
export class ApiClient {
  private readonly doFetch: typeof fetch;
  private readonly base: string;

  constructor(private readonly o: ApiClientOptions) {
    this.doFetch = o.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
    this.base = o.base ?? '';
  }

  /** The tab's token now (the event stream sends it itself). */
  token = (): string | null => this.o.token();

  headers(extra: Record<string, string> = {}): Record<string, string> {
    const token = this.o.token();
    return token ? { ...extra, Authorization: `Bearer ${token}` } : extra;
  }

  private async request(path: string, init: RequestInit = {}, accept = 'application/json'): Promise<Response> {
    const res = await this.doFetch(this.base + path, {
      ...init,
      headers: this.headers({ Accept: accept, ...((init.headers as Record<string, string>) ?? {}) }),
      cache: 'no-store',
    });
    if (res.ok) return res;
    if (res.status === 401) this.o.onUnauthorized();
    let body: ApiErrorBody | null = null;
    try {
      const parsed = (await res.json()) as Partial<ApiErrorBody>;
      if (typeof parsed?.message === 'string') body = parsed as ApiErrorBody;
    } catch {
      // not a JSON error body
    }
    throw new ApiHttpError(res.status, body);
  }

  private async json<T>(path: string, init?: RequestInit): Promise<T> {
    return (await (await this.request(path, init)).json()) as T;
  }

  private async text(path: string, accept: string): Promise<string> {
    return (await this.request(path, {}, accept)).text();
  }

  private post<T>(path: string, body: unknown): Promise<T> {
    return this.json<T>(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  }

  me = () => this.json<Me>('/v1/me');
  /** A call tried again in the playground (outside its run), and the call's tries so far. */
  tryInPlayground = (id: string, callId: string, body: { messages?: { role: string; content: string }[]; model?: string; provider?: string }) =>
    this.post<PlaygroundCall>(`/v1/runs/${encodeURIComponent(id)}/calls/${encodeURIComponent(callId)}/playground`, body);
  playground = (id: string, callId: string) => this.json<PlaygroundCall[]>(`/v1/runs/${encodeURIComponent(id)}/calls/${encodeURIComponent(callId)}/playground`);
  /** The shipped example projects, each ready to post as it is. */
  examples = () => this.json<ExampleProject[]>('/v1/examples');
  /** The workflows this deployment runs, each with its stages and its graph (the run page's stage graph). */
  workflows = () => this.json<WorkflowSummary[]>('/v1/workflows');

  listRuns(filter: { status?: string; workflow?: string } = {}) {
    return this.listRunsPage(filter).then((p) => p.runs);
  }

  /**
   * A page of runs and the next page's cursor (the api's X-Next-Cursor; null on the last page).
   * q searches the project's name, objective and run id; from/to are ISO dates or date-times.
   */
  async listRunsPage(filter: RunsQuery = {}): Promise<RunsPage> {
    const q = new URLSearchParams();
    for (const name of ['q', 'status', 'workflow', 'from', 'to', 'cursor'] as const) {
      const v = filter[name]?.trim();
      if (v) q.set(name, v);
    }
    if (filter.limit !== undefined) q.set('limit', String(filter.limit));
    const qs = q.toString();
    const res = await this.request(`/v1/runs${qs ? `?${qs}` : ''}`);
    return { runs: (await res.json()) as RunListItem[], nextCursor: res.headers.get('X-Next-Cursor') || null };
  }

  run = (id: string) => this.json<RunDetail>(`/v1/runs/${encodeURIComponent(id)}`);
  records = (id: string) => this.json<RunRecords>(`/v1/runs/${encodeURIComponent(id)}/records`);
  /** Every call of the run, in the order queued, with when each was queued, started and finished (the overview's waterfall). */
  calls = (id: string) => this.json<CallSummary[]>(`/v1/runs/${encodeURIComponent(id)}/calls`);
  call = (id: string, callId: string) => this.json<CallDetail>(`/v1/runs/${encodeURIComponent(id)}/calls/${encodeURIComponent(callId)}`);
  report = (id: string) => this.text(`/v1/runs/${encodeURIComponent(id)}/report`, 'text/markdown');
  diff = (id: string) => this.text(`/v1/runs/${encodeURIComponent(id)}/diff`, 'text/x-diff');
  file = (id: string, path: string) => this.text(`/v1/runs/${encodeURIComponent(id)}/files?path=${encodeURIComponent(path)}`, 'text/plain');

  /** The project file as typed or uploaded: posted as it is, YAML as YAML text; with a key, a repeat of it makes no second run. */
  submitRun(projectFile: string, idempotencyKey?: string) {
    return this.json<{ id: string; status: string }>('/v1/runs', {
      method: 'POST',
      headers: { 'Content-Type': projectFileContentType(projectFile), ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}) },
      body: projectFile,
    });
  }

  cancel = (id: string) => this.post<{ id: string; status: string }>(`/v1/runs/${encodeURIComponent(id)}/cancel`, {});
  resume = (id: string, body: Record<string, unknown>) => this.post<{ id: string; status: string }>(`/v1/runs/${encodeURIComponent(id)}/resume`, body);
  /** A decision at the gate the run waits at (needs the approve role). */
  approve = (id: string, body: Record<string, unknown>) => this.post<{ id: string; status: string }>(`/v1/runs/${encodeURIComponent(id)}/approvals`, body);
  answer = (id: string, body: { question_id: string; answer: string }) => this.post<{ id: string; status: string }>(`/v1/runs/${encodeURIComponent(id)}/answers`, body);
  /** A new run from a stage of this one, with edits (the api answers the fork's id and what it copies). */
  fork = (id: string, body: { from: string; edits?: Record<string, unknown> }) => this.post<{ id: string; status: string; forked_from: { run_id: string; stage: string; copied_calls: number } }>(`/v1/runs/${encodeURIComponent(id)}/fork`, body);
  /** Ideas (issue 23): worksheets kept as numbered versions, and each idea's evidence ledger. */
  ideas = () => this.json<IdeaListItem[]>('/v1/ideas');
  idea = (id: string) => this.json<IdeaDetail>(`/v1/ideas/${encodeURIComponent(id)}`);
  ideaVersion = (id: string, n: number) => this.json<IdeaVersionDetail>(`/v1/ideas/${encodeURIComponent(id)}/versions/${n}`);
  createIdea = (body: Record<string, unknown>) => this.post<IdeaDetail>('/v1/ideas', body);
  /** The changed fields over `base_version` make the next version; a locked base is a 409. */
  editIdea = (id: string, body: Record<string, unknown>) => this.post<IdeaVersionDetail>(`/v1/ideas/${encodeURIComponent(id)}/versions`, body);
  ideaDiff = (id: string, from: number, to: number) => this.json<IdeaDiff>(`/v1/ideas/${encodeURIComponent(id)}/diff?from=${from}&to=${to}`);
  evidence = (id: string) => this.json<EvidenceEntry[]>(`/v1/ideas/${encodeURIComponent(id)}/evidence`);
  /** A done panel's GO (or ITERATE's experiment) handed on as a build run (its objective and requirements from the synthesis). */
  handoff = (id: string, body: { panel_run_id: string; build: Record<string, unknown> }) => this.post<{ id: string; status: string }>(`/v1/ideas/${encodeURIComponent(id)}/handoff`, body);
  /** A done panel's recommended experiment drafted as an experiment whose run waits at the preregistration gate (201); a 409 says why not. */
  ideaExperiment = (id: string, body: Record<string, unknown>) => this.post<ExperimentStarted>(`/v1/ideas/${encodeURIComponent(id)}/experiment`, body);
  logEvidence = (id: string, body: Record<string, unknown>) => this.post<EvidenceEntry>(`/v1/ideas/${encodeURIComponent(id)}/evidence`, body);

  /** Experiments (issue 24), newest first; `project`, `status` and `idea` (drafted from its panel) filter the list. */
  experiments(filter: { project?: string; status?: string; idea?: string } = {}) {
    const q = new URLSearchParams();
    for (const name of ['project', 'status', 'idea'] as const) {
      const v = filter[name]?.trim();
      if (v) q.set(name, v);
    }
    const qs = q.toString();
    return this.json<ExperimentList>(`/v1/experiments${qs ? `?${qs}` : ''}`).then((l) => l.items);
  }
  /** The bias audit across recorded runs (issue 25 §3), of one project when named. */
  biasAudit = (project = '') => this.json<BiasAudit>(`/v1/audit/bias${project.trim() ? `?${new URLSearchParams({ project: project.trim() }).toString()}` : ''}`);
  experiment = (id: string) => this.json<ExperimentDetail>(`/v1/experiments/${encodeURIComponent(id)}`);
  experimentReport = (id: string) => this.text(`/v1/experiments/${encodeURIComponent(id)}/report`, 'text/markdown');
  /** A run of the locked preregistration (202); a 409 says why not (a draft, a result already there, altered, a run live). */
  runExperiment = (id: string) => this.post<ExperimentStarted>(`/v1/experiments/${encodeURIComponent(id)}/run`, {});

  /** Evals (issue 25), newest first: a suite's tasks under each configuration, scored. */
  evals = () => this.json<{ evals: EvalListItem[] }>('/v1/evals').then((l) => l.evals);
  evalDetail = (id: string) => this.json<EvalDetail>(`/v1/evals/${encodeURIComponent(id)}`);
  /** The pass rate against cost, as SVG text (the page shows it as an image's data: URL, never as markup). */
  evalPlot = (id: string) => this.text(`/v1/evals/${encodeURIComponent(id)}/plot.svg`, 'image/svg+xml');

  appeal = (id: string, body: Record<string, unknown>) => this.post<{ id: string; status: string }>(`/v1/runs/${encodeURIComponent(id)}/appeal`, body);
}
