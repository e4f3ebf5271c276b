import { AgentCallEntity } from '@roundtable/persistence';
import { ApiHarness, demoConfig, startApi } from './api-test-harness';

jest.setTimeout(30_000);

let api: ApiHarness;
let runId: string;

type Row = Record<string, unknown>;
async function getJson<T = Row>(path: string): Promise<{ status: number; json: T }> {
  const res = await fetch(`${api.base}${path}`);
  return { status: res.status, json: (await res.json()) as T };
}
const ids = async (q: string) => (await getJson<Row[]>(`/v1/runs/${runId}/calls?${q}`)).json.map((c) => String(c.id).split('-').pop());

const call = (over: Partial<AgentCallEntity>): Partial<AgentCallEntity> => ({
  runId,
  stage: 'ROAST',
  role: 'vc',
  provider: 'xai',
  model: 'grok-4',
  attempt: 1,
  status: 'completed',
  promptHash: 'h',
  messages: [{ role: 'user', content: 'roast' }],
  contextRefs: [],
  schemaName: 'judge_verdict',
  ...over,
});

/**
 * The calls API on a panel run: its judges, moderator and stages filter like the build's, and
 * every call shows its try number and the try it repeats (a transient failure's retry is a row).
 */
beforeAll(async () => {
  api = await startApi();
  const res = await fetch(`${api.base}/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(demoConfig()) });
  runId = ((await res.json()) as { id: string }).id;
  await api.ds.query(`UPDATE runs SET workflow = 'panel', status = 'running', stage = 'REVOTE' WHERE id = $1`, [runId]);
  await api.ds.getRepository(AgentCallEntity).insert([
    call({ id: `${runId}-c1`, seq: 1, label: 'V1' }),
    call({ id: `${runId}-c2`, seq: 2, role: 'pm', label: 'V3', status: 'failed', error: 'HTTP 500', errorCode: 'SERVER_ERROR' }),
    call({ id: `${runId}-c3`, seq: 3, role: 'pm', label: 'V3', retry: 1, retryOf: `${runId}-c2` }),
    call({ id: `${runId}-c4`, seq: 4, stage: 'DEBATE', label: 'D1', schemaName: 'debate_turn' }),
    call({ id: `${runId}-c5`, seq: 5, stage: 'REVOTE', label: 'RV1', schemaName: 'revote' }),
    call({ id: `${runId}-c6`, seq: 6, stage: 'REVOTE', role: 'pm', label: 'RV3', schemaName: 'revote' }),
    call({ id: `${runId}-c7`, seq: 7, stage: 'MODERATE', role: 'moderator', label: 'M1', schemaName: 'moderator_synthesis' }),
  ] as never);
});
afterAll(async () => {
  await api?.close();
});

describe('GET /v1/runs/:id/calls on a panel run', () => {
  it('filters by a judge, the moderator and the panel stages', async () => {
    expect(await ids('role=vc&stage=REVOTE')).toEqual(['c5']);
    expect(await ids('role=vc')).toEqual(['c1', 'c4', 'c5']);
    expect(await ids('role=pm')).toEqual(['c2', 'c3', 'c6']);
    expect(await ids('role=moderator')).toEqual(['c7']);
    expect(await ids('stage=ROAST')).toEqual(['c1', 'c2', 'c3']);
    expect(await ids('stage=DEBATE')).toEqual(['c4']);
    expect(await ids('stage=MODERATE')).toEqual(['c7']);
    expect(await ids('stage=APPEAL')).toEqual([]);
    expect(await ids('role=pm&stage=ROAST&failed=true')).toEqual(['c2']);
  });

  it('shows each call its try number and the try it repeats, in the list and in one call', async () => {
    const list = (await getJson<Row[]>(`/v1/runs/${runId}/calls?role=pm&stage=ROAST`)).json;
    expect(list.map((c) => [c.id, c.retry, c.retry_of])).toEqual([
      [`${runId}-c2`, 0, null],
      [`${runId}-c3`, 1, `${runId}-c2`],
    ]);
    const one = await getJson(`/v1/runs/${runId}/calls/${runId}-c3`);
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({ id: `${runId}-c3`, retry: 1, retry_of: `${runId}-c2`, attempt: 1, repair_of: null });
  });

  it.each([
    ['role=judge', 'role', 'role must be a build role (proposer, critic, reviser, engineer, validator, reviewer, synthesizer) or a panel role (vc, engineer, pm, customer, competitor, moderator) or an experiment role (proposer, interpreter, critic), given once'],
    [
      'stage=LUNCH',
      'stage',
      'stage must be a build stage (INIT, PROPOSE, CRITIQUE, REVISE, IMPLEMENT, TEST, FIX, REVIEW, SYNTHESIZE, MERGE, DONE, HALTED) or a panel stage (INIT, ROAST, DEBATE, REVOTE, MODERATE, APPEAL, DONE, HALTED) or an experiment stage (INIT, DRAFT, LOCK, RUN, INTERPRET, REVIEW, DONE, HALTED), given once',
    ],
  ])('refuses %s with a 400 naming the parameter and the names of both workflows', async (q, name, message) => {
    const res = await getJson(`/v1/runs/${runId}/calls?${q}`);
    expect(res).toEqual({ status: 400, json: { error: 'invalid_query', message, issues: [{ path: name, message }] } });
  });

  it('refuses a filter given twice, saying so', async () => {
    const res = await getJson<{ message: string }>(`/v1/runs/${runId}/calls?role=vc&role=pm`);
    expect(res.status).toBe(400);
    expect(res.json.message).toContain('given once');
  });
});

describe("GET /v1/runs/:id/calls/:callId's schema", () => {
  let other: string;
  beforeAll(async () => {
    const res = await fetch(`${api.base}/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(demoConfig()) });
    other = ((await res.json()) as { id: string }).id;
    await api.ds.getRepository(AgentCallEntity).insert([
      call({ runId: other, id: `${other}-c1`, seq: 1, label: 'V1', schemaName: 'JudgeVerdict' }),
      call({ runId: other, id: `${other}-c2`, seq: 2, stage: 'CRITIQUE', role: 'critic', label: 'C1', schemaName: 'CritiqueOrFilesRequested' }),
      call({ runId: other, id: `${other}-c3`, seq: 3, label: 'V2', schemaName: null }),
    ] as never);
  });

  it("is the JSON Schema of the call's schema_name, from the contracts' zod schema", async () => {
    const one = (await getJson<{ schema_name: string; schema: { type: string; properties: Record<string, { enum?: string[] }>; required: string[] } }>(`/v1/runs/${other}/calls/${other}-c1`)).json;
    expect(one.schema_name).toBe('JudgeVerdict');
    expect(one.schema.type).toBe('object');
    expect(one.schema.required).toEqual(expect.arrayContaining(['judge', 'score', 'stance', 'top_concerns', 'evidence']));
    expect(one.schema.properties.stance.enum).toEqual(['for', 'against', 'mixed']);
  });

  it('is the one merged object a provider is given for "the artifact, or a request for files"', async () => {
    const one = (await getJson<{ schema: { properties: Record<string, unknown> } }>(`/v1/runs/${other}/calls/${other}-c2`)).json;
    expect(Object.keys(one.schema.properties)).toEqual(expect.arrayContaining(['verdict', 'problems', 'paths', 'reason']));
  });

  it('is null for a call without a schema name', async () => {
    const one = await getJson(`/v1/runs/${other}/calls/${other}-c3`);
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({ schema_name: null, schema: null });
  });
});
