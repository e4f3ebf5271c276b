import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { OperatorPolicy, readOperatorPolicy } from '@roundtable/contracts';
import { ApiHarness, demoConfig, startApi } from './api-test-harness';

jest.setTimeout(30_000);

/**
 * The examples one click away (issue 22): GET /v1/examples offers the shipped projects, each
 * ready to post as it is, and a relative replay cassette is looked up under the operator's
 * cassette roots, never outside them.
 */
const REPO = path.resolve(__dirname, '../../..');
let api: ApiHarness;
let outside: string;

beforeAll(async () => {
  outside = mkdtempSync(path.join(tmpdir(), 'rt-int-outside-'));
  writeFileSync(path.join(outside, 'cassette.yaml'), 'replies: []\n');
  // Only the examples directory holds cassettes: as the local quick start's policy has it.
  const policy = OperatorPolicy.parse({ ...readOperatorPolicy().policy, cassettes: { roots: [path.join(REPO, 'examples')] } });
  api = await startApi({ EXAMPLES_DIR: path.join(REPO, 'examples') }, { policy });
});
afterAll(async () => {
  await api?.close();
  rmSync(outside, { recursive: true, force: true });
});

const post = (body: string) => fetch(`${api.base}/v1/runs`, { method: 'POST', headers: { 'content-type': 'text/yaml' }, body });

describe('GET /v1/examples', () => {
  it('lists the shipped examples, their cassettes relative to the cassette root, and each replay example posts as it is', async () => {
    const res = await fetch(`${api.base}/v1/examples`);
    expect(res.status).toBe(200);
    const examples = (await res.json()) as { name: string; workflow: string; summary: string; text: string }[];
    expect(examples.map((e) => [e.name, e.workflow])).toEqual(expect.arrayContaining([['dd-demo', 'build'], ['panel-demo', 'panel']]));
    const demo = examples.find((e) => e.name === 'dd-demo')!;
    expect(demo.text).toContain('cassette: dd-demo/cassette.yaml');
    expect(demo.text).toContain('Returns 0.0 for monotonically increasing'); // the project file itself
    expect(demo.summary.length).toBeGreaterThan(10);
    for (const e of examples.filter((x) => x.text.includes('type: replay'))) expect([e.name, (await post(e.text)).status]).toEqual([e.name, 202]);
  });
});

describe('a relative cassette posted to the api', () => {
  const withCassette = (cassette: string) => JSON.stringify({ ...demoConfig(), providers: { replay: { type: 'replay', cassette } } });
  const postJson = (body: string) => fetch(`${api.base}/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

  it('is found under a cassette root', async () => {
    expect((await postJson(withCassette('dd-demo/cassette.yaml'))).status).toBe(202);
  });

  it('is refused when no root holds it, or when it climbs out of the roots, naming the field', async () => {
    for (const cassette of ['nope/cassette.yaml', path.relative(path.join(REPO, 'examples'), path.join(outside, 'cassette.yaml'))]) {
      const res = await postJson(withCassette(cassette));
      expect(res.status).toBe(400);
      const body = (await res.json()) as { issues: { path: string; message: string }[] };
      expect(body.issues).toEqual([{ path: 'providers.replay.cassette', message: expect.stringContaining("none of the operator's cassette roots (cassettes.roots) holds it") }]);
    }
  });
});
