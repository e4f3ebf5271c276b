import { RUN_EVENT_PAYLOADS } from '@roundtable/contracts';
import { buildOpenApiDocument } from './openapi-document';

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown; security?: unknown[] }>>;
  components: { schemas: Record<string, Record<string, unknown>> };
};

describe('buildOpenApiDocument', () => {
  const doc = buildOpenApiDocument({ version: '0.1.0', bodyLimit: '1mb', writesPerMinute: 60 }) as unknown as Doc;

  it('describes every route of the API', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/',
      '/docs/openapi.json',
      '/healthz',
      '/metrics',
      '/readyz',
      '/v1/audit/bias',
      '/v1/evals',
      '/v1/evals/{id}',
      '/v1/evals/{id}/plot.svg',
      '/v1/examples',
      '/v1/experiments',
      '/v1/experiments/{id}',
      '/v1/experiments/{id}/report',
      '/v1/experiments/{id}/run',
      '/v1/ideas',
      '/v1/ideas/{id}',
      '/v1/ideas/{id}/diff',
      '/v1/ideas/{id}/evidence',
      '/v1/ideas/{id}/experiment',
      '/v1/ideas/{id}/handoff',
      '/v1/ideas/{id}/versions',
      '/v1/ideas/{id}/versions/{n}',
      '/v1/me',
      '/v1/providers',
      '/v1/runs',
      '/v1/runs/{id}',
      '/v1/runs/{id}/answers',
      '/v1/runs/{id}/appeal',
      '/v1/runs/{id}/approvals',
      '/v1/runs/{id}/bundle',
      '/v1/runs/{id}/calls',
      '/v1/runs/{id}/calls/{callId}',
      '/v1/runs/{id}/calls/{callId}/playground',
      '/v1/runs/{id}/cancel',
      '/v1/runs/{id}/diff',
      '/v1/runs/{id}/events',
      '/v1/runs/{id}/export',
      '/v1/runs/{id}/files',
      '/v1/runs/{id}/fork',
      '/v1/runs/{id}/patch',
      '/v1/runs/{id}/records',
      '/v1/runs/{id}/report',
      '/v1/runs/{id}/resume',
      '/v1/runs/{id}/verify',
      '/v1/usage',
      '/v1/workflows',
    ]);
  });

  it('generates request and reply schemas from the zod schemas, with references between them', () => {
    const s = doc.components.schemas;
    expect(s.BuildProjectConfig.required).toEqual(expect.arrayContaining(['project', 'objective', 'providers', 'agents']));
    // Input side: a field with a default is optional for the client.
    expect(s.BuildProjectConfig.required).not.toContain('autonomy');
    expect((s.ResumeRequest.properties as Record<string, { enum?: string[] }>).from.enum).toContain('CRITIQUE');
    expect(JSON.stringify(s.RunList)).toContain('#/components/schemas/RunListItem');
    expect((s.RunDetail.properties as Record<string, unknown>).usage).toEqual({ $ref: '#/components/schemas/RunUsage' });
    // Every $ref points at a component that exists.
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([A-Za-z]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(10);
    expect(refs.filter((r) => !s[r])).toEqual([]);
  });

  it("shows each call's try number and the try it repeats, and both workflows' roles and stages as the calls filters", () => {
    const call = doc.components.schemas.CallSummary as { properties: Record<string, { type?: unknown }>; required: string[] };
    expect(call.required).toEqual(expect.arrayContaining(['retry', 'retry_of']));
    expect(call.properties.retry.type).toBe('number');
    expect(JSON.stringify(call.properties.retry_of)).toContain('null');
    const params = (doc.paths['/v1/runs/{id}/calls'].get as unknown as { parameters: { name: string; schema: { enum?: string[] } }[] }).parameters;
    const enumOf = (name: string) => params.find((p) => p.name === name)?.schema.enum;
    expect(enumOf('role')).toEqual(expect.arrayContaining(['proposer', 'synthesizer', 'vc', 'competitor', 'moderator']));
    expect(enumOf('stage')).toEqual(expect.arrayContaining(['PROPOSE', 'SYNTHESIZE', 'ROAST', 'DEBATE', 'REVOTE', 'MODERATE', 'APPEAL']));
  });

  it('documents the runs list: search, dates, cursor, and the next page in X-Next-Cursor and Link beside an array reply', () => {
    const list = doc.paths['/v1/runs'].get as unknown as { parameters: { name: string }[]; responses: Record<string, { headers?: Record<string, unknown>; content?: unknown }> };
    expect(list.parameters.map((p) => p.name)).toEqual(['status', 'workflow', 'q', 'from', 'to', 'cursor', 'limit']);
    expect(Object.keys(list.responses['200'].headers ?? {})).toEqual(['X-Next-Cursor', 'Link']);
    expect(JSON.stringify(list.responses['200'].content)).toContain('#/components/schemas/RunList');
    expect(doc.components.schemas.RunList.type).toBe('array');
  });

  it('types each event by its `type`: a oneOf of one frame per event type, its payload the contracts\' schema', () => {
    const s = doc.components.schemas;
    const event = s.RunEvent as { oneOf: { $ref: string }[]; discriminator: { propertyName: string; mapping: Record<string, string> } };
    expect(event.oneOf).toHaveLength(Object.keys(RUN_EVENT_PAYLOADS).length);
    expect(event.discriminator.propertyName).toBe('type');
    expect(Object.keys(event.discriminator.mapping).sort()).toEqual(Object.keys(RUN_EVENT_PAYLOADS).sort());
    expect(event.oneOf).toContainEqual({ $ref: event.discriminator.mapping.criteria_locked });
    const locked = s.CriteriaLockedEvent as { properties: { type: unknown; payload: { properties: { criteria: unknown } } } };
    expect(locked.properties.type).toEqual({ type: 'string', const: 'criteria_locked' });
    expect(locked.properties.payload.properties.criteria).toEqual({ type: 'array', items: { $ref: '#/components/schemas/AcceptanceCriterion' } });
  });

  it("declares a run's criteria as the criteria_locked event carries them: [{ id, text }]", () => {
    const criteria = (doc.components.schemas.RunDetail.properties as Record<string, unknown>).criteria;
    expect(JSON.stringify(criteria)).toContain('#/components/schemas/AcceptanceCriterion');
    expect(doc.components.schemas.AcceptanceCriterion.required).toEqual(['id', 'text']);
  });

  it('documents every answer of /events: the stream, 204 after the end, 400 for a bad resume point', () => {
    const events = doc.paths['/v1/runs/{id}/events'].get.responses;
    expect(Object.keys(events)).toEqual(expect.arrayContaining(['200', '204', '400', '401', '404', '503']));
    expect(events['204']).not.toHaveProperty('content');
  });

  it('documents the doors: 401 everywhere behind the token, 403 and 429 on writes, no token on health', () => {
    const submit = doc.paths['/v1/runs'].post.responses;
    expect(Object.keys(submit)).toEqual(expect.arrayContaining(['202', '400', '401', '403', '413', '429']));
    expect(Object.keys(doc.paths['/v1/runs/{id}'].get.responses)).toContain('401');
    expect(doc.paths['/healthz'].get.security).toEqual([]);
    expect(doc.paths['/readyz'].get.security).toEqual([]);
    expect(doc.paths['/'].get.security).toEqual([]);
  });

  it("describes the run page's routes: the list's usage, the records of either workflow, the diff and a file by path", () => {
    const s = doc.components.schemas;
    expect(JSON.stringify(s.RunList)).toContain('#/components/schemas/RunListItem');
    expect((s.RunListItem.properties as Record<string, unknown>).usage).toEqual({ $ref: '#/components/schemas/RunListUsage' });
    expect(JSON.stringify(s.RunRecords)).toContain('#/components/schemas/BuildRecords');
    expect(JSON.stringify(s.RunRecords)).toContain('#/components/schemas/PanelRecords');
    expect(s.BuildRecords.required).toEqual(expect.arrayContaining(['proposals', 'critiques', 'implementations', 'test_runs', 'reviews', 'synthesis', 'disagreements', 'open_questions', 'acceptance_criteria']));
    expect(s.PanelRecords.required).toEqual(expect.arrayContaining(['judges', 'debate', 'revote', 'moderator', 'appeal']));
    expect(Object.keys(doc.paths['/v1/runs/{id}/diff'].get.responses)).toEqual(expect.arrayContaining(['200', '404', '409', '401']));
    const files = doc.paths['/v1/runs/{id}/files'].get as unknown as { parameters: { name: string; required?: boolean }[]; responses: Record<string, unknown> };
    expect(files.parameters.find((p) => p.name === 'path')?.required).toBe(true);
    expect(Object.keys(files.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '409', '401']));
    expect(JSON.stringify((s.CallDetail.properties as Record<string, unknown>).schema)).toContain('null');
  });
});
