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
      '/healthz',
      '/metrics',
      '/readyz',
      '/v1/providers',
      '/v1/runs',
      '/v1/runs/{id}',
      '/v1/runs/{id}/appeal',
      '/v1/runs/{id}/calls',
      '/v1/runs/{id}/calls/{callId}',
      '/v1/runs/{id}/cancel',
      '/v1/runs/{id}/events',
      '/v1/runs/{id}/report',
      '/v1/runs/{id}/resume',
    ]);
  });

  it('generates request and reply schemas from the zod schemas, with references between them', () => {
    const s = doc.components.schemas;
    expect(s.BuildProjectConfig.required).toEqual(expect.arrayContaining(['project', 'objective', 'providers', 'agents']));
    // Input side: a field with a default is optional for the client.
    expect(s.BuildProjectConfig.required).not.toContain('autonomy');
    expect((s.ResumeRequest.properties as Record<string, { enum?: string[] }>).from.enum).toContain('CRITIQUE');
    expect(JSON.stringify(s.RunList)).toContain('#/components/schemas/RunSummary');
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

  it('documents the doors: 401 everywhere behind the token, 403 and 429 on writes, no token on health', () => {
    const submit = doc.paths['/v1/runs'].post.responses;
    expect(Object.keys(submit)).toEqual(expect.arrayContaining(['202', '400', '401', '403', '413', '429']));
    expect(Object.keys(doc.paths['/v1/runs/{id}'].get.responses)).toContain('401');
    expect(doc.paths['/healthz'].get.security).toEqual([]);
    expect(doc.paths['/readyz'].get.security).toEqual([]);
  });
});
