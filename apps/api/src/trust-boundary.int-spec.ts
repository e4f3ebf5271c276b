import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { readOperatorPolicy } from '@roundtable/contracts';
import { RunEntity } from '@roundtable/persistence';
import { ApiHarness, demoConfig, PostedConfig, startApi } from './api-test-harness';

jest.setTimeout(60_000);

/**
 * The api's half of the trust boundary (issue 12): a posted project is a request, and the
 * operator's policy decides. Each attack is one test: a 400 that names the field and the policy
 * line, and no run written. The policy is a strict one written for this file (defaults but for a
 * repo root and the demo's cassettes); the last test posts the same config to an api whose policy
 * allows it.
 */

interface Issue {
  path: string;
  message: string;
}
interface Reply {
  error: string;
  message: string;
  issues: Issue[];
  [field: string]: unknown;
}

const DEMO_DIR = join(__dirname, '../../../examples/dd-demo');
const PANEL_DIR = join(__dirname, '../../../examples/panel-demo');

let scratch: string;
let allowedRoot: string;
let outsideRepo: string;
let strict: ApiHarness;
let lenient: ApiHarness;

function writePolicy(name: string, yaml: string): string {
  const file = join(scratch, name);
  writeFileSync(file, yaml);
  return file;
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'rt-trust-'));
  allowedRoot = join(scratch, 'allowed');
  outsideRepo = join(scratch, 'elsewhere', 'repo');
  mkdirSync(join(allowedRoot, 'repo'), { recursive: true });
  mkdirSync(outsideRepo, { recursive: true });
  // A symlink that sits inside the root and leads out of it.
  symlinkSync('/etc', join(allowedRoot, 'escape'));
  symlinkSync('/etc/no-such-dir-rt-test', join(allowedRoot, 'dangling'));
  // Everything else the defaults: keys to their official URLs only, no `sandbox: process`, 2 cpus …
  const strictPolicy = writePolicy('strict.yaml', `repos: { roots: [allowed] }\ncassettes: { roots: [${DEMO_DIR}, ${PANEL_DIR}] }\n`);
  const lenientPolicy = writePolicy('lenient.yaml', `repos: { roots: [allowed, elsewhere] }\ncassettes: { roots: [${DEMO_DIR}] }\n`);
  [strict, lenient] = await Promise.all([
    // 1mb: room for a body nested 200,000 deep, so the depth limit answers and not the size limit.
    startApi({ API_BODY_LIMIT: '1mb' }, { policy: readOperatorPolicy({ ROUNDTABLE_POLICY: strictPolicy }).policy }),
    startApi({}, { policy: readOperatorPolicy({ ROUNDTABLE_POLICY: lenientPolicy }).policy }),
  ]);
});

afterAll(async () => {
  await Promise.all([strict?.close(), lenient?.close()]);
  rmSync(scratch, { recursive: true, force: true });
});

async function postRaw(api: ApiHarness, body: string, contentType = 'application/json'): Promise<{ status: number; json: Reply }> {
  const res = await fetch(`${api.base}/v1/runs`, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: res.status, json: (await res.json()) as Reply };
}
const post = (cfg: unknown, api = strict) => postRaw(api, JSON.stringify(cfg));
const runCount = (api = strict) => api.ds.getRepository(RunEntity).count();

/** A refusal: 400 invalid_project_config, the field among the issues with the policy line in its message, and no run written. */
async function expectRefused(cfg: unknown, path: string, line: string | RegExp): Promise<Issue> {
  const before = await runCount();
  const res = await post(cfg);
  expect(res.status).toBe(400);
  expect(res.json.error).toBe('invalid_project_config');
  const issue = res.json.issues.find((i) => i.path === path);
  expect(issue).toBeDefined();
  if (typeof line === 'string') expect(issue!.message).toContain(line);
  else expect(issue!.message).toMatch(line);
  expect(res.json.message).toContain(path);
  expect(await runCount()).toBe(before);
  return issue!;
}

/** The key variables the attacks name are set here, so what refuses them is the policy, not a missing key (the api checks no key of its own since issue 15: the provider registry says which worker holds which). */
async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** The demo with one more provider, which the critic uses. */
function withProvider(pc: Record<string, unknown>): PostedConfig {
  const cfg = demoConfig();
  (cfg.providers as Record<string, unknown>).extra = pc;
  cfg.agents.critic.provider = 'extra';
  return cfg;
}

describe('the strict policy accepts the demo itself', () => {
  it('queues the demo (replay cassette inside cassettes.roots, default sandbox)', async () => {
    const res = await post(demoConfig());
    expect(res.status).toBe(202);
  });

  it('queues a repo inside repos.roots and a sandbox within the limits', async () => {
    const res = await post({ ...demoConfig(), repo: join(allowedRoot, 'repo'), sandbox: { runner: 'docker', cpus: 2, memory_mb: 2048, pids: 512, image: 'roundtable/sandbox:latest' } });
    expect(res.status).toBe(202);
  });
});

describe('providers: what reaches a process or a URL', () => {
  it('refuses a cli provider that names its binary', async () => {
    await expectRefused(withProvider({ type: 'cli', cli: 'claude', binary: '/tmp/x.sh' }), 'providers.extra.binary', 'cli.binaries');
  });

  it('refuses api_key_env: DATABASE_URL sent to a client base_url', async () => {
    await withEnv({ DATABASE_URL: strict.env.DATABASE_URL }, () =>
      expectRefused(withProvider({ type: 'openai_compat', api_key_env: 'DATABASE_URL', base_url: 'https://collect.example.com/v1' }), 'providers.extra.api_key_env', 'DATABASE_URL is not a provider key in the operator policy (ROUNDTABLE_POLICY)'),
    );
  });

  it('refuses a permitted key sent to a base_url that is not its own', async () => {
    await withEnv({ OPENAI_API_KEY: 'sk-test-not-a-real-key' }, () =>
      expectRefused(
        withProvider({ type: 'openai_compat', api_key_env: 'OPENAI_API_KEY', base_url: 'https://collect.example.com/v1' }),
        'providers.extra.base_url',
        'OPENAI_API_KEY may only be sent to [https://api.openai.com/v1], not https://collect.example.com/v1, by the operator policy (ROUNDTABLE_POLICY) (api_keys.OPENAI_API_KEY.base_urls)',
      ),
    );
  });

  it('refuses a panel whose judges send a key elsewhere (a panel has providers only)', async () => {
    const panel = parseYaml(readFileSync(join(PANEL_DIR, 'project.yaml'), 'utf8')) as PostedConfig;
    panel.providers.replay.cassette = join(PANEL_DIR, 'cassette.yaml');
    expect((await post(panel)).status).toBe(202);
    (panel.providers as Record<string, unknown>).extra = { type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY', base_url: 'http://127.0.0.1:9/v1' };
    (panel.judges as Record<string, { provider: string }>).vc.provider = 'extra';
    await withEnv({ ANTHROPIC_API_KEY: 'sk-ant-test' }, () => expectRefused(panel, 'providers.extra.base_url', 'api_keys.ANTHROPIC_API_KEY.base_urls'));
  });
});

describe('variables: the api expands none', () => {
  it('refuses objective: "db=${DATABASE_URL}" and never puts the secret in the reply', async () => {
    await withEnv({ DATABASE_URL: strict.env.DATABASE_URL }, async () => {
      const issue = await expectRefused({ ...demoConfig(), objective: 'db=${DATABASE_URL}' }, 'objective', 'the services never expand variables');
      expect(issue.message).not.toContain(strict.env.DATABASE_URL);
    });
  });

  it('refuses a ${VAR} anywhere, e.g. inside a requirement', async () => {
    await expectRefused({ ...demoConfig(), requirements: ['fine', 'leak ${HOME}'] }, 'requirements.1', 'holds "${"');
  });
});

describe('repo: a directory the workers will read', () => {
  it('refuses repo: /etc', async () => {
    await expectRefused({ ...demoConfig(), repo: '/etc' }, 'repo', /^repositories may only be read from \[.*\/allowed\] by the operator policy \(ROUNDTABLE_POLICY\) \(repos\.roots\); this path is outside them$/);
  });

  it('refuses a symlink inside an allowed root that leads outside it, judged where it leads', async () => {
    await expectRefused({ ...demoConfig(), repo: join(allowedRoot, 'escape') }, 'repo', '(repos.roots)');
    await expectRefused({ ...demoConfig(), repo: join(allowedRoot, 'escape', 'ssl') }, 'repo', '(repos.roots)');
  });

  it('refuses a missing path behind such a symlink, and .. out of the root, the same way', async () => {
    const outside = await post({ ...demoConfig(), repo: '/etc' });
    for (const repo of [join(allowedRoot, 'dangling'), join(allowedRoot, 'escape', 'no-such-dir-rt-test'), `${allowedRoot}/../elsewhere/repo`, `${allowedRoot}/nope/../../elsewhere/repo`]) {
      const res = await post({ ...demoConfig(), repo });
      expect({ repo, ...res }).toEqual({ repo, ...outside });
    }
  });

  it('says only a path inside the roots does not exist', async () => {
    await expectRefused({ ...demoConfig(), repo: join(allowedRoot, 'not-made') }, 'repo', `${join(allowedRoot, 'not-made')} does not exist on the server`);
  });
});

describe('sandbox: where and how the tests run', () => {
  const withSandbox = (sandbox: unknown) => ({ ...demoConfig(), sandbox });

  it('refuses sandbox: process', async () => {
    await expectRefused(withSandbox('process'), 'sandbox.runner', '(sandbox.allow_process: false)');
  });

  it.each([
    [{ pids: 1_000_000 }, 'sandbox.pids', '1000000 is over the limit of 1024 set by the operator policy (ROUNDTABLE_POLICY) (sandbox.max_pids)'],
    [{ memory_mb: 1_048_576 }, 'sandbox.memory_mb', '1048576 is over the limit of 4096 set by the operator policy (ROUNDTABLE_POLICY) (sandbox.max_memory_mb)'],
    [{ cpus: 4 }, 'sandbox.cpus', '4 is over the limit of 2 set by the operator policy (ROUNDTABLE_POLICY) (sandbox.max_cpus)'],
    [{ image: 'attacker/miner:latest' }, 'sandbox.image', 'attacker/miner:latest is not an image allowed by the operator policy (ROUNDTABLE_POLICY); allowed: [roundtable/sandbox:latest]'],
  ])('refuses sandbox %j', async (sandbox, path, line) => {
    await expectRefused(withSandbox(sandbox), path, line);
  });

  it('lists every refusal of one config in one 400', async () => {
    const res = await post({ ...withSandbox({ pids: 1_000_000, cpus: 4 }), repo: '/etc' });
    expect(res.status).toBe(400);
    expect(res.json.issues.map((i) => i.path).sort()).toEqual(['repo', 'sandbox.cpus', 'sandbox.pids']);
  });
});

describe('cassettes: no existence oracle', () => {
  const withCassette = (cassette: string) => {
    const cfg = demoConfig();
    cfg.providers.replay.cassette = cassette;
    return cfg;
  };

  it('answers /etc/shadow and a path that does not exist with the identical refusal', async () => {
    const shadow = await post(withCassette('/etc/shadow'));
    const missing = await post(withCassette('/no/such/file'));
    expect(shadow.status).toBe(400);
    expect(shadow.json.issues).toEqual([
      { path: 'providers.replay.cassette', message: expect.stringMatching(/^cassettes may only be read from \[.*\] by the operator policy \(ROUNDTABLE_POLICY\) \(cassettes\.roots\); this path is outside them$/) },
    ]);
    expect(missing).toEqual(shadow);
    // And through a symlink in an allowed directory: the same again, existing target or not.
    expect(await post(withCassette(join(allowedRoot, 'escape', 'shadow')))).toEqual(shadow);
    expect(await post(withCassette(join(allowedRoot, 'escape', 'no-such-file-rt-test')))).toEqual(shadow);
  });
});

describe('text a database cannot hold, and bodies nested too deep', () => {
  it('refuses a NUL in a field, naming it', async () => {
    await expectRefused({ ...demoConfig(), objective: 'drop\u0000this' }, 'objective', 'NUL character');
  });

  it('refuses a lone surrogate, naming the field', async () => {
    const before = await runCount();
    // JSON.stringify would escape the half character as \ud800 anyway; written out so the test says what it sends.
    const body = JSON.stringify({ ...demoConfig(), requirements: ['x'] }).replace('"requirements":["x"]', '"requirements":["half \\ud800 a character"]');
    const res = await postRaw(strict, body);
    expect(res.status).toBe(400);
    expect(res.json.issues).toContainEqual({ path: 'requirements.0', message: expect.stringContaining('lone UTF-16 surrogate') });
    expect(await runCount()).toBe(before);
  });

  it('refuses a NUL in YAML text too (a "\\0" escape)', async () => {
    const yaml = toYaml({ ...demoConfig(), project: 'dd\u0000demo' });
    expect(yaml).toContain('"dd\\0demo"');
    const res = await postRaw(strict, yaml, 'application/yaml');
    expect(res.status).toBe(400);
    expect(res.json.issues).toEqual([{ path: 'project', message: expect.stringContaining('NUL character') }]);
  });

  it.each([
    ['JSON arrays', 'application/json', `{"project":"dd","objective":${'['.repeat(200_000)}${']'.repeat(200_000)}}`],
    ['JSON objects', 'application/json', `{"project":"dd","objective":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`],
    ['YAML flow sequences', 'application/yaml', `project: dd\nobjective: ${'['.repeat(200_000)}${']'.repeat(200_000)}\n`],
    ['YAML block sequences on one line', 'application/yaml', `project: dd\nobjective:\n  ${'- '.repeat(200_000)}x\n`],
  ])('refuses %s nested 200,000 deep with a 400 that gives the depth limit', async (_what, type, body) => {
    const before = await runCount();
    const res = await postRaw(strict, body, type);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: 'body_too_deep', message: expect.stringMatching(/body nests deeper than 64 levels \(line \d+\)/), limit: 64 });
    expect(await runCount()).toBe(before);
    // The api is still up and serving.
    expect((await fetch(`${strict.base}/healthz`)).status).toBe(200);
  });
});

describe('the same config, accepted where the policy allows it', () => {
  it('a repo outside the strict roots is a 400 there and a run on an api whose policy has the root', async () => {
    const cfg = { ...demoConfig(), repo: outsideRepo };
    await expectRefused(cfg, 'repo', '(repos.roots)');
    const res = await post(cfg, lenient);
    expect(res.status).toBe(202);
    expect(await runCount(lenient)).toBe(1);
  });
});
