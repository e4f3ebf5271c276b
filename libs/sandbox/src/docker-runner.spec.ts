import { formatOwner, parseOwner } from './container-labels';
import { dockerEndpoint } from './docker-client';
import { DEFAULT_SANDBOX_LIMITS, DockerTestRunner, SANDBOX_CONTAINER_ENV, sandboxContainerOptions } from './docker-runner';

const spec = {
  image: 'roundtable/sandbox:test',
  command: 'python -m pytest -q',
  workspace: '/var/lib/roundtable/workspaces/r1/workspace',
  limits: { memoryMb: 512, cpus: 1.5, pids: 128, tmpfsMb: 64 },
  runId: 'r1',
  deadline: 1_700_000_000_000,
  owner: 'host/42/abc',
};

describe('sandboxContainerOptions', () => {
  const opts = sandboxContainerOptions(spec);
  const host = opts.HostConfig ?? {};

  it('isolates: no network, read-only root, no capabilities, no privilege escalation, non-root', () => {
    expect(host.NetworkMode).toBe('none');
    expect(opts.NetworkDisabled).toBe(true);
    expect(host.ReadonlyRootfs).toBe(true);
    expect(host.CapDrop).toEqual(['ALL']);
    expect(host.CapAdd).toBeUndefined();
    expect(host.SecurityOpt).toEqual(['no-new-privileges']);
    expect(host.Privileged).toBe(false);
    expect(opts.User).toBe('10001:10001');
  });

  it('mounts only the workspace, read-write at /workspace, and never the Docker socket', () => {
    expect(host.Mounts).toEqual([{ Type: 'bind', Source: spec.workspace, Target: '/workspace', ReadOnly: false }]);
    expect(host.Binds).toBeUndefined();
    expect(host.VolumesFrom).toBeUndefined();
    expect(JSON.stringify(opts)).not.toContain('docker.sock');
    expect(opts.WorkingDir).toBe('/workspace');
  });

  it('applies the limits: pids, memory with no swap, CPUs, a bounded tmpfs /tmp', () => {
    expect(host.PidsLimit).toBe(128);
    expect(host.Memory).toBe(512 * 1024 * 1024);
    expect(host.MemorySwap).toBe(host.Memory);
    expect(host.NanoCpus).toBe(1_500_000_000);
    expect(host.Tmpfs).toEqual({ '/tmp': 'rw,nosuid,nodev,size=64m,mode=1777' });
  });

  it('keeps no log on the host (a flood of output cannot fill the disk)', () => {
    expect(host.LogConfig?.Type).toBe('none');
  });

  it('labels the container for the reaper', () => {
    expect(opts.Labels).toEqual({
      'roundtable.sandbox': '1',
      'roundtable.run': 'r1',
      'roundtable.deadline': '1700000000000',
      'roundtable.owner': 'host/42/abc',
    });
  });

  it('runs the command through sh, with the fixed environment only', () => {
    expect(opts.Cmd).toEqual(['/bin/sh', '-c', 'python -m pytest -q']);
    expect(opts.Env).toEqual([...SANDBOX_CONTAINER_ENV]);
    expect(opts.Env?.map((e) => e.split('=')[0]).sort()).toEqual(['HOME', 'LANG', 'PATH', 'PYTHONDONTWRITEBYTECODE', 'PYTHONUNBUFFERED']);
  });

  it('adds the request\'s own variables after the fixed ones, and refuses one that would replace them', () => {
    expect(sandboxContainerOptions({ ...spec, env: { ROUNDTABLE_METRICS: '/workspace/.roundtable/metrics.json' } }).Env).toEqual([
      ...SANDBOX_CONTAINER_ENV,
      'ROUNDTABLE_METRICS=/workspace/.roundtable/metrics.json',
    ]);
    expect(() => sandboxContainerOptions({ ...spec, env: { HOME: '/root' } })).toThrow('sandbox env: HOME is set by the sandbox itself');
  });

  it('takes nothing from the runner environment, whatever it holds', () => {
    const saved = { ...process.env };
    process.env.OPENAI_API_KEY = 'sk-must-not-leak';
    process.env.DATABASE_URL = 'postgres://u:secret@db/x';
    try {
      const text = JSON.stringify(sandboxContainerOptions(spec));
      expect(text).not.toContain('sk-must-not-leak');
      expect(text).not.toContain('secret@db');
    } finally {
      process.env = saved;
    }
  });
});

describe('DockerTestRunner', () => {
  it('is labelled docker and fills unset limits with the defaults', () => {
    const r = new DockerTestRunner({ endpoint: dockerEndpoint('unix:///nonexistent.sock'), limits: { memoryMb: 256, cpus: undefined } });
    expect(r.kind).toBe('docker');
    expect(r.limits).toEqual({ ...DEFAULT_SANDBOX_LIMITS, memoryMb: 256 });
    expect(r.image).toBe('roundtable/sandbox:latest');
  });
});

describe('dockerEndpoint', () => {
  it.each([
    [undefined, 'unix:///var/run/docker.sock'],
    ['', 'unix:///var/run/docker.sock'],
    ['unix:///run/user/1000/docker.sock', 'unix:///run/user/1000/docker.sock'],
    ['tcp://10.0.0.5:2375', 'tcp://10.0.0.5:2375'],
    ['tcp://dockerd', 'tcp://dockerd:2375'],
  ])('%j → %s', (host, address) => {
    expect(dockerEndpoint(host).address).toBe(address);
  });

  it('refuses what it cannot honour instead of silently using another engine', () => {
    expect(() => dockerEndpoint('ssh://user@host')).toThrow(/not supported/);
  });
});

describe('container owner label', () => {
  it('round-trips a hostname with dots and dashes', () => {
    const o = { host: 'ip-10-0-0-5.ec2.internal', pid: 1, instance: '3f2a' };
    expect(parseOwner(formatOwner(o))).toEqual(o);
  });

  it.each([undefined, '', 'garbage', 'host/notapid/x'])('%j is not an owner', (label) => {
    expect(parseOwner(label)).toBeNull();
  });
});
