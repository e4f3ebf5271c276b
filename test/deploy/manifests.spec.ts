import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { IScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { DEFAULT_API_KEYS, type OperatorPolicy, parseOperatorPolicy, providerPolicyIssues, sandboxPolicyIssues } from '@roundtable/contracts';
import { ApiEnv } from '../../apps/api/src/api.env';
import { COMPOSE_FILE, composeCli, composeSchemaErrors, interpolate, loadCompose } from './compose-validation';
import { loadKustomization, loadManifests, manifestFiles, REPO_ROOT, schemaError, unknownFieldErrors, type Manifest } from './k8s-validation';

/**
 * The deployment files (k8s/, docker-compose.yml) against the Kubernetes and Compose schemas, and
 * the rules the schemas cannot know: probes, limits, non-root, where the Docker socket goes,
 * where keys come from, which queue each autoscaler reads.
 */

const manifests = loadManifests(manifestFiles());
const applied = loadManifests(loadKustomization().resources ?? []);
const ofKind = <T>(kind: string, from: Manifest[] = applied): T[] => from.filter((m) => m.doc.kind === kind).map((m) => m.doc as unknown as T);

const deployments = ofKind<IDeployment>('Deployment');
const byName = (name: string): IDeployment => {
  const d = deployments.find((x) => x.metadata?.name === name);
  if (!d) throw new Error(`no Deployment ${name} in k8s/`);
  return d;
};
const podSpec = (d: IDeployment | IJob): IPodSpec => d.spec?.template.spec as IPodSpec;
const containersOf = (spec: IPodSpec): IContainer[] => [...(spec.initContainers ?? []), ...spec.containers];
const commandOf = (c: IContainer): string => [...(c.command ?? []), ...(c.args ?? [])].join(' ');
const isProviderWorker = (d: IDeployment): boolean => podSpec(d).containers.some((c) => commandOf(c).includes('dist/apps/provider-worker/main.js'));
const envOf = (c: IContainer, name: string) => c.env?.find((e) => e.name === name);
const config = ofKind<IConfigMap>('ConfigMap').find((c) => c.metadata?.name === 'roundtable-config');

/**
 * The one container that is allowed root: test-runner's Docker-in-Docker sidecar (privileged, by
 * design; see k8s/test-runner.yaml). Everything else runs as uid 10001.
 */
const ROOT_ALLOWED = { deployment: 'test-runner', container: 'dind' };

/** Where the image keeps the keyless demo's cassette (the compose smoke posts this path). */
const DEMO_CASSETTE = '/app/examples/dd-demo/cassette.yaml';
const POLICY_FILE = '/etc/roundtable/policy.yaml';

/** What a deployment's policy must allow, and refuse, for the demo to run and nothing looser. */
function expectDeploymentPolicy(policy: OperatorPolicy): void {
  expect(providerPolicyIssues('replay', { type: 'replay', cassette: DEMO_CASSETTE, latency_ms: 0 }, policy)).toEqual([]);
  expect(providerPolicyIssues('replay', { type: 'replay', cassette: '/etc/shadow', latency_ms: 0 }, policy)).not.toEqual([]);
  expect(sandboxPolicyIssues({ sandbox: { runner: 'docker' } }, policy)).toEqual([]);
  expect(sandboxPolicyIssues({ sandbox: { runner: 'process' } }, policy).map((i) => i.path)).toEqual(['sandbox.runner']);
  expect(policy.sandbox.images).toEqual(['roundtable/sandbox:latest']);
}

/** Provider keys: the default policy's api_keys and any `*_API_KEY`. */
const PROVIDER_KEY = new RegExp(`^(${Object.keys(DEFAULT_API_KEYS).join('|')}|[A-Z0-9_]+_API_KEY)$`);

/** Names of variables that hold credentials: keys, tokens, passwords, URLs that embed them. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|DATABASE_URL|REDIS_URL/;

describe('k8s/', () => {
  it('applies every manifest in k8s/ through kustomization.yaml, except the Secret example', () => {
    const resources = loadKustomization().resources ?? [];
    expect(resources.filter((r) => !existsSync(path.join(REPO_ROOT, 'k8s', r)))).toEqual([]);
    expect([...resources].sort()).toEqual(manifestFiles().filter((f) => f !== 'secret.example.yaml'));
    expect(loadKustomization().namespace).toBe('roundtable');
  });

  it('validates every object against its Kubernetes (or KEDA) schema', () => {
    expect(manifests.length).toBeGreaterThan(10);
    expect(manifests.map(schemaError).filter(Boolean)).toEqual([]);
  });

  it('uses no field the Kubernetes API does not know (what kubectl apply rejects)', () => {
    expect(unknownFieldErrors(manifests)).toEqual([]);
  }, 60_000);

  it('runs api, orchestrator, one Deployment per provider-worker group and test-runner', () => {
    const names = deployments.map((d) => d.metadata?.name).sort();
    expect(names).toEqual(['api', 'orchestrator', 'test-runner', 'worker-anthropic', 'worker-replay']);
    // Each command names a service the build produces (tools/build.mjs: apps/<name>/src/main.ts).
    for (const d of [...deployments, ...ofKind<IJob>('Job')]) {
      for (const c of podSpec(d).containers) {
        const app = /dist\/apps\/([a-z-]+)\/main\.js/.exec(commandOf(c))?.[1];
        if (app) expect(existsSync(path.join(REPO_ROOT, 'apps', app, 'src', 'main.ts'))).toBe(true);
        else expect(commandOf(c)).toBe('node dist/tools/migrate.js');
        expect(c.image).toBe('roundtable/services:latest');
      }
    }
    expect(ofKind<IJob>('Job').map((j) => commandOf(podSpec(j).containers[0]))).toEqual(['node dist/tools/migrate.js']);
  });

  it('gives every Deployment liveness and readiness probes, and every container requests and limits', () => {
    for (const d of deployments) {
      for (const c of podSpec(d).containers) {
        expect({ d: d.metadata?.name, c: c.name, liveness: c.livenessProbe?.httpGet?.path }).toEqual({ d: d.metadata?.name, c: c.name, liveness: '/healthz' });
        expect({ d: d.metadata?.name, c: c.name, readiness: c.readinessProbe?.httpGet?.path }).toEqual({ d: d.metadata?.name, c: c.name, readiness: '/readyz' });
        // The api answers on its own port; the workers on their ops port (HEALTH_PORT).
        const port = d.metadata?.name === 'api' ? 'http' : 'health';
        expect([c.livenessProbe?.httpGet?.port, c.readinessProbe?.httpGet?.port]).toEqual([port, port]);
        if (port === 'health') expect(c.ports?.find((p) => p.name === 'health')?.containerPort).toBe(Number(config?.data?.HEALTH_PORT));
      }
    }
    for (const w of [...deployments, ...ofKind<IJob>('Job')]) {
      for (const c of containersOf(podSpec(w))) {
        const r = c.resources ?? {};
        expect({ c: c.name, requests: Object.keys(r.requests ?? {}).sort(), limits: Object.keys(r.limits ?? {}).sort() }).toEqual({
          c: c.name,
          requests: ['cpu', 'memory'],
          limits: ['cpu', 'memory'],
        });
      }
    }
  });

  it('runs every container as uid 10001 without privileges, but the Docker-in-Docker sidecar', () => {
    for (const w of [...deployments, ...ofKind<IJob>('Job')]) {
      const spec = podSpec(w);
      for (const c of containersOf(spec)) {
        if (w.metadata?.name === ROOT_ALLOWED.deployment && c.name === ROOT_ALLOWED.container) {
          expect(c.securityContext?.privileged).toBe(true);
          continue;
        }
        const effective = { ...spec.securityContext, ...c.securityContext };
        expect({ where: `${w.metadata?.name}/${c.name}`, ...pick(effective) }).toEqual({
          where: `${w.metadata?.name}/${c.name}`,
          runAsNonRoot: true,
          runAsUser: 10001,
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          privileged: undefined,
          drop: ['ALL'],
        });
      }
    }
  });

  it('gives an engine socket to test-runner only: no hostPath anywhere, one privileged sidecar', () => {
    const pods = [...deployments, ...ofKind<IJob>('Job')].map((w) => ({ name: w.metadata?.name, spec: podSpec(w) }));
    expect(pods.flatMap((p) => (p.spec.volumes ?? []).filter((v) => v.hostPath).map((v) => `${p.name}: ${v.name}`))).toEqual([]);
    const privileged = pods.flatMap((p) => containersOf(p.spec).filter((c) => c.securityContext?.privileged).map((c) => `${p.name}/${c.name}`));
    expect(privileged).toEqual([`${ROOT_ALLOWED.deployment}/${ROOT_ALLOWED.container}`]);
    const withDockerHost = pods.flatMap((p) => containersOf(p.spec).filter((c) => envOf(c, 'DOCKER_HOST')).map((c) => `${p.name}/${c.name}`));
    expect(withDockerHost).toEqual(['test-runner/test-runner']);
    // The engine listens on a unix socket in a volume only test-runner's pod has, never on TCP.
    const dind = containersOf(podSpec(byName('test-runner'))).find((c) => c.name === ROOT_ALLOWED.container) as IContainer;
    expect(commandOf(dind)).toContain('--host=unix:///run/dind/docker.sock');
    expect(commandOf(dind)).not.toMatch(/tcp:\/\//);
    expect(envOf(podSpec(byName('test-runner')).containers[0], 'DOCKER_HOST')?.value).toBe('unix:///run/dind/docker.sock');
  });

  it('takes every key, token and credential-bearing URL from a Secret, and nothing secret from the ConfigMap', () => {
    for (const w of [...deployments, ...ofKind<IJob>('Job')]) {
      for (const c of containersOf(podSpec(w))) {
        for (const e of (c.env ?? []).filter((x) => SECRET_NAME.test(x.name))) {
          expect({ where: `${w.metadata?.name}/${c.name}/${e.name}`, value: e.value, secret: e.valueFrom?.secretKeyRef?.name }).toEqual({
            where: `${w.metadata?.name}/${c.name}/${e.name}`,
            value: undefined,
            secret: 'roundtable-secrets',
          });
        }
        for (const from of c.envFrom ?? []) expect(from.configMapRef?.name ?? 'a Secret via envFrom').toBe('roundtable-config');
      }
    }
    expect(Object.keys(config?.data ?? {}).filter((k) => SECRET_NAME.test(k))).toEqual([]);
    // Provider keys are optional: a group whose key is missing still starts.
    const key = envOf(podSpec(byName('worker-anthropic')).containers[0], 'ANTHROPIC_API_KEY');
    expect(key?.valueFrom?.secretKeyRef).toEqual({ name: 'roundtable-secrets', key: 'ANTHROPIC_API_KEY', optional: true });
    // The Secret is not applied from the repository (its values would be in git).
    expect(applied.filter((m) => m.doc.kind === 'Secret')).toEqual([]);
  });

  it('gives provider keys to the provider-worker groups only, each group its own: the api holds none (the provider registry tells it who does)', () => {
    const keysOf = (w: IDeployment | IJob) => containersOf(podSpec(w)).flatMap((c) => (c.env ?? []).map((e) => e.name).filter((n) => PROVIDER_KEY.test(n)));
    for (const w of [...deployments.filter((d) => !isProviderWorker(d)), ...ofKind<IJob>('Job')]) expect({ where: w.metadata?.name, keys: keysOf(w) }).toEqual({ where: w.metadata?.name, keys: [] });
    const groups = Object.fromEntries(deployments.filter(isProviderWorker).map((d) => [d.metadata?.name, keysOf(d)]));
    expect(groups).toEqual({ 'worker-anthropic': ['ANTHROPIC_API_KEY'], 'worker-replay': [] });
    // A group serves the providers its PROVIDER_QUEUES names: the anthropic key goes where `anthropic` is consumed.
    expect(envOf(podSpec(byName('worker-anthropic')).containers[0], 'PROVIDER_QUEUES')?.value).toBe('anthropic');
  });

  it("scales each provider-worker group on a Prometheus query of its own queue's depth", () => {
    const workers = deployments.filter(isProviderWorker);
    expect(workers.map((d) => d.metadata?.name).sort()).toEqual(['worker-anthropic', 'worker-replay']);
    const scaled = ofKind<IScaledObject>('ScaledObject');
    expect(scaled).toHaveLength(workers.length);
    for (const d of workers) {
      const provider = envOf(podSpec(d).containers[0], 'PROVIDER_QUEUES')?.value;
      // One provider per group: `*` or a list would make the group's queue, and its scaling, ambiguous.
      expect(provider).toMatch(/^[a-z][a-z0-9_-]*$/);
      const so = scaled.filter((s) => s.spec.scaleTargetRef.name === d.metadata?.name);
      expect(so).toHaveLength(1);
      const triggers = so[0].spec.triggers;
      expect(triggers.map((t) => t.type)).toEqual(['prometheus']);
      const query = String(triggers[0].metadata.query);
      const queues = [...query.matchAll(/queue\s*=~?\s*"([^"]*)"/g)].map((m) => m[1]);
      expect({ deployment: d.metadata?.name, queues }).toEqual({ deployment: d.metadata?.name, queues: [`agent.${provider}`] });
      expect(query).toMatch(/^sum\(.*roundtable_queue_jobs\{/);
      for (const state of ['waiting', 'prioritized', 'delayed']) expect(query).toContain(state);
      expect(Number(triggers[0].metadata.threshold)).toBeGreaterThan(0);
      // KEDA owns the replica count: a fixed one in the Deployment would be reset on every apply.
      expect(d.spec?.replicas).toBeUndefined();
      expect(so[0].spec.minReplicaCount ?? 0).toBeLessThanOrEqual(so[0].spec.maxReplicaCount ?? 100);
    }
  });

  it('waits longer than the longest agent call before killing a provider worker', () => {
    for (const d of deployments.filter(isProviderWorker)) expect(podSpec(d).terminationGracePeriodSeconds).toBeGreaterThan(600);
    // test-runner: above the default test timeout (120 s).
    expect(podSpec(byName('test-runner')).terminationGracePeriodSeconds).toBeGreaterThan(120);
  });

  it('requires API_TOKENS on the api, from the Secret and not optional: without it the pod does not start', () => {
    const tokens = envOf(podSpec(byName('api')).containers[0], 'API_TOKENS');
    expect(tokens?.valueFrom?.secretKeyRef).toEqual({ name: 'roundtable-secrets', key: 'API_TOKENS' });
    // No HOST: with tokens the api listens on every interface of the pod, which the Service needs.
    expect(envOf(podSpec(byName('api')).containers[0], 'HOST')).toBeUndefined();
    expect(readFileSync(path.join(REPO_ROOT, 'k8s', 'secret.example.yaml'), 'utf8')).toMatch(/API_TOKENS=.*openssl rand -hex 24/);
  });

  it('gives every service ROUNDTABLE_POLICY, the roundtable-policy ConfigMap mounted read-only, allowing the demo and the docker sandbox only', () => {
    expect(config?.data?.ROUNDTABLE_POLICY).toBe(POLICY_FILE);
    const policyMap = ofKind<IConfigMap>('ConfigMap').find((c) => c.metadata?.name === 'roundtable-policy');
    const text = policyMap?.data?.['policy.yaml'];
    expect(typeof text).toBe('string');
    for (const d of deployments) {
      const spec = podSpec(d);
      const volume = (spec.volumes ?? []).find((v) => v.configMap?.name === 'roundtable-policy');
      const app = spec.containers[0];
      expect({ d: d.metadata?.name, envFrom: app.envFrom?.map((e) => e.configMapRef?.name), env: envOf(app, 'ROUNDTABLE_POLICY') }).toEqual({
        d: d.metadata?.name,
        envFrom: ['roundtable-config'],
        env: undefined,
      });
      const mount = (app.volumeMounts ?? []).find((m) => m.name === volume?.name);
      expect({ d: d.metadata?.name, at: mount?.mountPath, readOnly: mount?.readOnly }).toEqual({ d: d.metadata?.name, at: path.dirname(POLICY_FILE), readOnly: true });
    }
    const policy = parseOperatorPolicy(String(text), path.dirname(POLICY_FILE), 'k8s/policy.yaml');
    expectDeploymentPolicy(policy);
    // One policy for both deployments: what compose allows, k8s allows.
    expect(policy).toEqual(parseOperatorPolicy(readFileSync(path.join(REPO_ROOT, 'docker', 'policy.yaml'), 'utf8'), path.dirname(POLICY_FILE)));
  });

  it('scales the api on CPU with an HPA that owns its replica count', () => {
    const hpas = ofKind<IHorizontalPodAutoscaler>('HorizontalPodAutoscaler');
    expect(hpas.map((h) => [h.spec?.scaleTargetRef.kind, h.spec?.scaleTargetRef.name])).toEqual([['Deployment', 'api']]);
    expect(hpas[0].spec?.metrics?.map((m) => m.resource?.name)).toEqual(['cpu']);
    expect(byName('api').spec?.replicas).toBeUndefined();
  });

  it('shares one ReadWriteMany workspace volume at WORKSPACE_ROOT between test-runner, its engine and the provider workers', () => {
    const pvcs = ofKind<IPersistentVolumeClaim>('PersistentVolumeClaim');
    expect(pvcs.map((p) => [p.metadata?.name, p.spec?.accessModes])).toEqual([['roundtable-workspaces', ['ReadWriteMany']]]);
    const root = config?.data?.WORKSPACE_ROOT;
    expect(root).toMatch(/^\//);
    const mounting = deployments.flatMap((d) => {
      const claimVolumes = (podSpec(d).volumes ?? []).filter((v) => v.persistentVolumeClaim?.claimName === 'roundtable-workspaces').map((v) => v.name);
      return containersOf(podSpec(d)).flatMap((c) =>
        (c.volumeMounts ?? []).filter((m) => claimVolumes.includes(m.name)).map((m) => `${d.metadata?.name}/${c.name}:${m.mountPath}`),
      );
    });
    expect(mounting.sort()).toEqual(
      [`test-runner/dind:${root}`, `test-runner/test-runner:${root}`, `worker-anthropic/worker-anthropic:${root}`, `worker-replay/worker-replay:${root}`].sort(),
    );
  });
});

describe('docker-compose.yml', () => {
  const compose = loadCompose();
  const services = compose.services;
  const named = (s: string) => services[s] ?? (() => { throw new Error(`no service ${s} in docker-compose.yml`); })();
  const isApp = (s: string) => String(named(s).image ?? '').includes('ROUNDTABLE_IMAGE');
  const mounts = (s: string) => (named(s).volumes ?? []).map((v) => interpolate(v));

  it('validates against the Compose specification schema', () => {
    expect(composeSchemaErrors(compose)).toEqual([]);
    // The schema catches what a typo makes, so this test can fail.
    expect(composeSchemaErrors({ services: { api: { imagee: 'x' } } })).not.toEqual([]);
    // Where this machine has Compose itself, it reads the file as it would for `up` (interpolation included).
    const cli = composeCli();
    if (cli) {
      const r = spawnSync(cli[0], [...cli.slice(1), '-f', COMPOSE_FILE, 'config', '-q'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
      expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    }
  });

  it('keeps postgres and redis (scripts/ensure-infra.sh starts them by name) and Redis safe for BullMQ', () => {
    expect(Object.keys(services)).toEqual(expect.arrayContaining(['postgres', 'redis']));
    expect(named('postgres').depends_on).toBeUndefined();
    expect(named('redis').depends_on).toBeUndefined();
    const redis = (named('redis').command as string[]).join(' ');
    expect(redis).toContain('--maxmemory-policy noeviction');
    expect(redis).toContain('--appendonly yes');
    expect(named('postgres').healthcheck).toBeDefined();
    expect(named('redis').healthcheck).toBeDefined();
  });

  it('migrates once before any service starts', () => {
    expect(named('migrate').command).toEqual(['node', 'dist/tools/migrate.js']);
    expect(named('migrate').restart).toBe('no');
    const apps = Object.keys(services).filter((s) => isApp(s) && !['migrate', 'workspace-init'].includes(s));
    expect(apps.sort()).toEqual(['api', 'orchestrator', 'test-runner', 'worker-anthropic', 'worker-replay']);
    for (const s of apps) expect({ s, migrate: named(s).depends_on?.migrate?.condition }).toEqual({ s, migrate: 'service_completed_successfully' });
  });

  it('runs one provider-worker service per provider group, each scalable alone', () => {
    const workers = Object.keys(services).filter((s) => JSON.stringify(named(s).command ?? '').includes('provider-worker'));
    expect(workers.sort()).toEqual(['worker-anthropic', 'worker-replay']);
    expect(named('worker-replay').environment?.PROVIDER_QUEUES).toBe('replay');
    expect(named('worker-anthropic').environment?.PROVIDER_QUEUES).toBe('anthropic');
    for (const s of workers) {
      // --scale needs no fixed name and no host port.
      expect({ s, name: named(s).container_name, ports: named(s).ports }).toEqual({ s, name: undefined, ports: undefined });
    }
  });

  it('mounts the Docker socket into test-runner only, and the workspaces at the same path inside and out', () => {
    const withSocket = Object.keys(services).filter((s) => mounts(s).some((m) => m.split(':')[0] === '/var/run/docker.sock'));
    expect(withSocket).toEqual(['test-runner']);
    const root = interpolate(String(named('test-runner').environment?.WORKSPACE_ROOT));
    expect(root).toBe('/var/lib/roundtable/workspaces');
    // The engine resolves the sandbox's bind mount on the host: the path must be the same on both sides.
    for (const s of ['test-runner', 'worker-replay', 'worker-anthropic', 'workspace-init']) expect({ s, mounted: mounts(s).includes(`${root}:${root}`) }).toEqual({ s, mounted: true });
  });

  it('runs the app services as the image user (uid 10001), root only for the one-shot that owns the workspace directory', () => {
    const asRoot = Object.keys(services).filter((s) => isApp(s) && named(s).user !== undefined);
    expect(asRoot).toEqual(['workspace-init']);
    expect(JSON.stringify(named('workspace-init').entrypoint)).toContain('chown 10001:10001');
  });

  it('passes keys through from the environment, never with a value in the file', () => {
    for (const [s, svc] of Object.entries(services)) {
      for (const [k, v] of Object.entries(svc.environment ?? {})) {
        if (!/KEY|TOKEN|SECRET|PASSWORD/.test(k)) continue;
        expect({ s, k, v }).toEqual({ s, k, v: null });
      }
    }
    expect(named('worker-anthropic').environment).toHaveProperty('ANTHROPIC_API_KEY', null);
  });

  it('gives provider keys to the provider-worker services only, each group its own: the api holds none', () => {
    const keys = Object.fromEntries(Object.entries(services).map(([s, svc]) => [s, Object.keys(svc.environment ?? {}).filter((k) => PROVIDER_KEY.test(k))]));
    expect(Object.fromEntries(Object.entries(keys).filter(([, k]) => k.length))).toEqual({ 'worker-anthropic': ['ANTHROPIC_API_KEY'] });
    expect(named('worker-anthropic').environment).toHaveProperty('PROVIDER_QUEUES', 'anthropic');
  });

  it('requires API_TOKENS: the api listens on 0.0.0.0, so its environment refuses to start without tokens', () => {
    const env = Object.fromEntries(
      Object.entries(named('api').environment ?? {})
        .filter(([, v]) => v !== null)
        .map(([k, v]) => [k, interpolate(String(v))]),
    );
    expect(env.HOST).toBe('0.0.0.0');
    expect(env.API_OPEN).toBeUndefined();
    expect(named('api').environment).toHaveProperty('API_TOKENS', null);
    const parsed = ApiEnv.safeParse(env);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.message).join('\n')).toMatch(/API_TOKENS is not set.*Set API_TOKENS=name:token:write.*API_OPEN=true/);
    expect(ApiEnv.safeParse({ ...env, API_TOKENS: 'me:0123456789abcdef0123:write' }).success).toBe(true);
    expect(readFileSync(COMPOSE_FILE, 'utf8')).toMatch(/export API_TOKENS="me:\$\(openssl rand -hex 24\):write"/);
  });

  it('gives every service ROUNDTABLE_POLICY, docker/policy.yaml mounted read-only, allowing the demo and the docker sandbox only', () => {
    const apps = ['api', 'orchestrator', 'worker-replay', 'worker-anthropic', 'test-runner'];
    for (const s of apps) {
      expect({ s, policy: named(s).environment?.ROUNDTABLE_POLICY, mounted: mounts(s).includes(`./docker/policy.yaml:${POLICY_FILE}:ro`) }).toEqual({ s, policy: POLICY_FILE, mounted: true });
    }
    expectDeploymentPolicy(parseOperatorPolicy(readFileSync(path.join(REPO_ROOT, 'docker', 'policy.yaml'), 'utf8'), path.dirname(POLICY_FILE), 'docker/policy.yaml'));
  });
});

/** The security settings the test compares, from a merged pod + container securityContext. */
function pick(sc: Record<string, unknown>) {
  return {
    runAsNonRoot: sc.runAsNonRoot,
    runAsUser: sc.runAsUser,
    allowPrivilegeEscalation: sc.allowPrivilegeEscalation,
    readOnlyRootFilesystem: sc.readOnlyRootFilesystem,
    privileged: sc.privileged,
    drop: (sc.capabilities as { drop?: string[] } | undefined)?.drop,
  };
}
