/**
 * `npm run probe:sandbox` (scripts/sandbox-probe.sh): tries to get out of the REAL sandbox, the
 * DockerTestRunner a test run gets (the test-runner's default image, the operator policy's
 * maximum limits, CPUs capped at the engine's), and prints `held` or `escaped` per probe with a
 * one-line figure. Exits 1 if anything escaped or could not be judged.
 *
 * Never sends a packet to a non-loopback address (this machine's network is watched): the
 * gateway and the non-routable address are judged from the container's interfaces and route
 * tables, and the only connects are to 127.0.0.1 inside the container.
 *
 * The secrets probe needs this process started with host secrets in its environment:
 * scripts/sandbox-probe.sh puts a random marker into DATABASE_URL, REDIS_URL and the provider
 * keys, and PROBE_SECRET_MARKER says which marker.
 *
 * Knobs (env): ROUNDTABLE_POLICY (the limits; the safe defaults without it), SANDBOX_IMAGE
 * (roundtable/sandbox:latest), DOCKER_HOST.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_SANDBOX_IMAGE, readOperatorPolicy } from '@roundtable/contracts';
import { dockerEndpoint, DockerTestRunner, prepareEmptyWorkspace, SANDBOX_CONTAINER_ENV, SANDBOX_GID, type TestRunOutcome } from '@roundtable/sandbox';

interface Verdict {
  held: boolean;
  figure: string;
}

interface Probe {
  name: string;
  run(): Promise<Verdict>;
}

/** Names that hold host secrets in a deployment: none may appear inside. */
const HOST_SECRET_NAMES = [
  'DATABASE_URL',
  'REDIS_URL',
  'ANTHROPIC_API_KEY',
  'OPENAI_API_KEY',
  'XAI_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'PGPASSWORD',
  'ROUNDTABLE_POLICY',
  'DOCKER_HOST',
  'PROBE_SECRET_MARKER',
];

/** What a container may have besides SANDBOX_CONTAINER_ENV: what Docker and the shell set themselves. */
const CONTAINER_OWN_ENV = new Set(['HOSTNAME', 'PWD', 'SHLVL', '_', 'OLDPWD']);

const { policy, source } = readOperatorPolicy(process.env);
const image = process.env.SANDBOX_IMAGE?.trim() || DEFAULT_SANDBOX_IMAGE;
const endpoint = dockerEndpoint(process.env.DOCKER_HOST);
const root = mkdtempSync(path.join(tmpdir(), 'rt-sandbox-probe-'));
let ws = '';
let runner: DockerTestRunner;
let probeCount = 0;

/** One run in the sandbox; each probe's commands end well inside `timeoutMs`. */
async function inside(command: string, timeoutMs = 10_000): Promise<TestRunOutcome> {
  return runner.run({ workspace: ws, command, timeoutMs, runId: `sandbox-probe-${process.pid}-${++probeCount}` });
}

/** The JSON a probe script printed on its `PROBE ` line. */
function reported<T>(out: TestRunOutcome): T {
  const line = out.output.split('\n').find((l) => l.startsWith('PROBE '));
  if (!line) throw new Error(`no PROBE line in the output (exit ${out.exit_code}): ${out.output.slice(-400)}`);
  return JSON.parse(line.slice('PROBE '.length)) as T;
}

function script(name: string, body: string): string {
  writeFileSync(path.join(ws, name), body);
  return `python3 ${name}`;
}

const probes: Probe[] = [
  {
    name: 'net: interfaces',
    async run() {
      const r = reported<{ ifaces: string[] }>(
        await inside(script('p_ifaces.py', "import json, os\nprint('PROBE ' + json.dumps({'ifaces': sorted(os.listdir('/sys/class/net'))}))\n")),
      );
      return { held: r.ifaces.length === 1 && r.ifaces[0] === 'lo', figure: `interfaces in /sys/class/net: ${r.ifaces.join(', ') || '(none)'}` };
    },
  },
  {
    name: 'net: routes',
    async run() {
      // A route counts when it is up (RTF_UP 0x1) and not a reject route (RTF_REJECT 0x200):
      // with NetworkMode none the kernel lists IPv6 "unreachable" defaults on lo, which route nothing.
      const py = `import json, socket, struct
UP, REJECT = 0x1, 0x200
def read(p):
    try:
        return [l.split() for l in open(p).read().splitlines() if l.strip()]
    except FileNotFoundError:
        return []
v4 = [{'iface': r[0], 'dst': int(r[1], 16), 'gw': int(r[2], 16), 'flags': int(r[3], 16), 'mask': int(r[7], 16)} for r in read('/proc/net/route')[1:]]
v6 = [{'iface': r[9], 'dst': r[0], 'plen': int(r[1], 16), 'flags': int(r[8], 16)} for r in read('/proc/net/ipv6_route')]
usable4 = [r for r in v4 if r['flags'] & UP and not r['flags'] & REJECT]
usable6 = [r for r in v6 if r['flags'] & UP and not r['flags'] & REJECT]
# /proc/net/route is in host byte order (little-endian here), as the kernel keeps it.
target = struct.unpack('<I', socket.inet_aton('192.0.2.1'))[0]
covers = [r for r in usable4 if (target & r['mask']) == (r['dst'] & r['mask'])]
print('PROBE ' + json.dumps({
    'v4': len(v4), 'v6': len(v6), 'usable4': len(usable4), 'usable6': len(usable6),
    'default4': sum(1 for r in usable4 if r['mask'] == 0), 'default6': sum(1 for r in usable6 if r['plen'] == 0),
    'off_lo': sorted({r['iface'] for r in usable4 + usable6 if r['iface'] != 'lo'}),
    'gateways': sum(1 for r in usable4 if r['gw'] != 0), 'to_test_net': len(covers),
}))
`;
      const r = reported<{ v4: number; v6: number; usable4: number; usable6: number; default4: number; default6: number; off_lo: string[]; gateways: number; to_test_net: number }>(
        await inside(script('p_routes.py', py)),
      );
      const held = r.default4 === 0 && r.default6 === 0 && r.off_lo.length === 0 && r.gateways === 0 && r.to_test_net === 0;
      return {
        held,
        figure:
          `usable routes: IPv4 ${r.usable4} of ${r.v4}, IPv6 ${r.usable6} of ${r.v6}; default routes ${r.default4 + r.default6}, gateways ${r.gateways}, ` +
          `off lo ${r.off_lo.length ? r.off_lo.join(',') : 'none'}; a route to 192.0.2.1 (judged, not tried): ${r.to_test_net ? 'yes' : 'none'}`,
      };
    },
  },
  {
    name: 'net: loopback is its own',
    async run() {
      // A listener on the host's 127.0.0.1: a container whose 127.0.0.1 were the host's would reach it.
      let accepted = 0;
      const host = createServer((s) => {
        accepted++;
        s.destroy();
      });
      await new Promise<void>((done) => host.listen(0, '127.0.0.1', done));
      const hostPort = (host.address() as AddressInfo).port;
      try {
        const py = `import json, socket, sys
srv = socket.socket(); srv.bind(('127.0.0.1', 0)); srv.listen(1)
c = socket.create_connection(('127.0.0.1', srv.getsockname()[1]), timeout=2)
a, _ = srv.accept(); c.sendall(b'ping'); own = a.recv(4).decode()
s = socket.socket(); s.settimeout(2)
try:
    s.connect(('127.0.0.1', int(sys.argv[1]))); host = 'connected'
except OSError as e:
    host = e.strerror
print('PROBE ' + json.dumps({'own': own, 'host': host}))
`;
        const r = reported<{ own: string; host: string }>(await inside(`${script('p_loop.py', py)} ${hostPort}`));
        return {
          held: r.own === 'ping' && r.host !== 'connected' && accepted === 0,
          figure: `its own 127.0.0.1 listener: ${r.own === 'ping' ? 'reached' : 'NOT reached'}; the host's 127.0.0.1:${hostPort}: ${r.host} (host saw ${accepted} connection(s))`,
        };
      } finally {
        host.close();
      }
    },
  },
  {
    name: 'fs: writes outside the workspace',
    async run() {
      const py = `import json, os
dirs = ['/', '/etc', '/usr', '/usr/local/bin', '/bin', '/lib', '/var', '/var/tmp', '/root', '/home', '/opt', '/srv', '/mnt', '/run', '/dev', '/proc', '/sys', '/sys/fs/cgroup']
files = ['/etc/hosts', '/etc/resolv.conf', '/etc/hostname', '/etc/passwd', '/proc/sys/kernel/hostname']
def try_dir(d):
    p = os.path.join(d, '.rt-probe')
    try:
        with open(p, 'w') as f:
            f.write('x')
        os.unlink(p)
        return 'wrote'
    except OSError as e:
        return e.strerror
def try_file(f):
    try:
        with open(f, 'a') as h:
            h.write('')
        return 'opened'
    except OSError as e:
        return e.strerror
rw = sorted({l.split()[1] for l in open('/proc/mounts') if 'rw' in l.split()[3].split(',')})
print('PROBE ' + json.dumps({'dirs': {d: try_dir(d) for d in dirs}, 'files': {f: try_file(f) for f in files},
    'workspace': try_dir('/workspace'), 'tmp': try_dir('/tmp'), 'rw_mounts': rw}))
`;
      const r = reported<{ dirs: Record<string, string>; files: Record<string, string>; workspace: string; tmp: string; rw_mounts: string[] }>(await inside(script('p_writes.py', py)));
      const wrote = [...Object.entries(r.dirs).filter(([, v]) => v === 'wrote'), ...Object.entries(r.files).filter(([, v]) => v === 'opened')].map(([k]) => k);
      return {
        held: wrote.length === 0 && r.workspace === 'wrote' && r.tmp === 'wrote',
        figure:
          `${Object.keys(r.dirs).length} directories and ${Object.keys(r.files).length} files refused${wrote.length ? ` except ${wrote.join(', ')}` : ''}; ` +
          `/workspace ${r.workspace}, /tmp ${r.tmp}; rw mounts: ${r.rw_mounts.join(' ')}`,
      };
    },
  },
  {
    name: 'secrets: env and /proc/*/environ',
    async run() {
      const marker = process.env.PROBE_SECRET_MARKER ?? '';
      const armed = marker.length >= 16 && HOST_SECRET_NAMES.filter((n) => n !== 'ROUNDTABLE_POLICY' && n !== 'DOCKER_HOST' && n !== 'PGPASSWORD').every((n) => process.env[n]?.includes(marker));
      if (!armed) return { held: false, figure: 'not armed: start it through scripts/sandbox-probe.sh, which puts a marker into DATABASE_URL, REDIS_URL and the provider keys' };
      const py = `import json, os
environs = {}
for pid in os.listdir('/proc'):
    if pid.isdigit():
        try:
            environs[pid] = [e.decode('utf8', 'replace') for e in open('/proc/%s/environ' % pid, 'rb').read().split(b'\\0') if e]
        except OSError:
            pass
print('PROBE ' + json.dumps({'env': sorted(os.environ), 'pid1': environs.get('1', []), 'procs': len(environs)}))
for pid, env in environs.items():
    print('ENVIRON', pid, ' '.join(env))
`;
      const out = await inside(script('p_env.py', py));
      const r = reported<{ env: string[]; pid1: string[]; procs: number }>(out);
      const allowed = new Set([...SANDBOX_CONTAINER_ENV.map((e) => e.split('=')[0]), ...CONTAINER_OWN_ENV]);
      const names = new Set([...r.env, ...r.pid1.map((e) => e.split('=')[0])]);
      const secretNames = HOST_SECRET_NAMES.filter((n) => names.has(n));
      const strangers = [...names].filter((n) => !allowed.has(n));
      const markerSeen = out.output.includes(marker);
      return {
        held: secretNames.length === 0 && strangers.length === 0 && !markerSeen && r.pid1.length > 0,
        figure:
          `container env ${r.env.length} names, /proc/1/environ ${r.pid1.length}, ${r.procs} process(es) read; host secret names inside: ${secretNames.join(', ') || 'none'} of ${HOST_SECRET_NAMES.length}; ` +
          `names beyond the fixed env: ${strangers.join(', ') || 'none'}; marker: ${markerSeen ? 'FOUND' : 'absent'}`,
      };
    },
  },
  {
    name: 'pids: fork bomb',
    async run() {
      const limit = runner.limits.pids;
      const py = `import json, os, time
n, refused = 0, None
try:
    for _ in range(${limit * 4}):
        if os.fork() == 0:
            time.sleep(30); os._exit(0)
        n += 1
except OSError as e:
    refused = e.errno
print('PROBE ' + json.dumps({'forked': n, 'refused': refused}), flush=True)
os._exit(0)
`;
      const started = Date.now();
      const r = reported<{ forked: number; refused: number | null }>(await inside(script('p_forks.py', py), 20_000));
      // The classic bomb has no end of its own: the wall clock ends it, and the host must not notice.
      const bomb = await inside('bomb() { bomb | bomb & }; bomb; sleep 30', 3000);
      const seconds = (Date.now() - started) / 1000;
      const hostForks = spawnSync('/bin/sh', ['-c', 'for i in 1 2 3 4 5 6 7 8; do true & done; wait; echo ok'], { encoding: 'utf8', timeout: 5000 }).stdout?.trim() === 'ok';
      const engine = await endpoint.client.ping().then(() => true, () => false);
      return {
        held: r.refused === 11 && r.forked < limit && bomb.timed_out && hostForks && engine,
        figure:
          `forks allowed ${r.forked} before EAGAIN (pids limit ${limit}); shell bomb killed at its ${bomb.timed_out ? '3 s timeout' : 'end'}; ` +
          `host forks ${hostForks ? 'fine' : 'FAILED'}, engine ${engine ? 'answers' : 'GONE'}; ${seconds.toFixed(1)} s`,
      };
    },
  },
  {
    name: 'memory: memory bomb',
    async run() {
      const limit = runner.limits.memoryMb;
      // Pages written, not just reserved (b'\\x01' * n touches every one), 64 MiB at a time.
      const py = "import sys\nchunks, mb = [], 0\nwhile True:\n    chunks.append(b'\\x01' * (64 << 20)); mb += 64\n    sys.stdout.write('MB %d\\n' % mb); sys.stdout.flush()\n";
      const started = Date.now();
      // Bounded, not quick: past 2 GiB each fresh page costs more on a VM; a timed-out bomb is not judged held.
      const out = await inside(script('p_mem.py', py), 60_000);
      const seconds = (Date.now() - started) / 1000;
      const last = Math.max(0, ...[...out.output.matchAll(/^MB (\d+)$/gm)].map((m) => Number(m[1])));
      return {
        held: out.oom_killed && !out.timed_out && last <= limit,
        figure: `${out.oom_killed ? 'killed by the kernel' : 'NOT killed'} after ${last} MiB written (limit ${limit} MiB, no swap), exit ${out.exit_code}; ${seconds.toFixed(1)} s`,
      };
    },
  },
  {
    name: 'docker: socket and DOCKER_HOST',
    async run() {
      const py = `import json, os, stat
paths = ['/var/run/docker.sock', '/run/docker.sock', '/run/containerd/containerd.sock', '/var/run/containerd/containerd.sock', '/run/podman/podman.sock', '/run/user']
present = [p for p in paths if os.path.lexists(p)]
sockets = []
for top, dirs, files in os.walk('/'):
    if top in ('/proc', '/sys'):
        dirs[:] = []
        continue
    for f in files:
        p = os.path.join(top, f)
        try:
            if stat.S_ISSOCK(os.lstat(p).st_mode):
                sockets.append(p)
        except OSError:
            pass
env = sorted(k for k in os.environ if k.startswith('DOCKER') or k in ('CONTAINER_HOST', 'CONTAINERD_ADDRESS'))
mounts = [l.split()[1] for l in open('/proc/mounts') if 'sock' in l.split()[1]]
print('PROBE ' + json.dumps({'present': present, 'sockets': sockets, 'env': env, 'mounts': mounts}))
`;
      const r = reported<{ present: string[]; sockets: string[]; env: string[]; mounts: string[] }>(await inside(script('p_docker.py', py)));
      return {
        held: r.present.length === 0 && r.sockets.length === 0 && r.env.length === 0 && r.mounts.length === 0,
        figure: `engine sockets at known paths: ${r.present.join(', ') || 'none'}; unix sockets anywhere in the filesystem: ${r.sockets.length}; DOCKER_* env: ${r.env.join(', ') || 'none'}; socket mounts: ${r.mounts.length}`,
      };
    },
  },
  {
    name: 'setuid: a setuid-root binary inside',
    async run() {
      // The image's own `id`, made setuid root on the host side: without no-new-privileges
      // (the workspace mount is not nosuid) it would report euid 0.
      const copied = await inside('cp /usr/bin/id /workspace/suid-id');
      if (copied.exit_code !== 0) return { held: false, figure: `could not copy id into the workspace: ${copied.output.trim()}` };
      const bin = path.join(ws, 'suid-id');
      chownSync(bin, 0, SANDBOX_GID); // the sandbox's group already: the grant has no chown to do (a chown drops the bit)
      chmodSync(bin, 0o4775);
      const out = await inside("./suid-id -u; grep -E '^NoNewPrivs' /proc/self/status; stat -c '%A %u' suid-id");
      const [euid, nnp, seen] = out.output.trim().split('\n');
      return {
        held: euid !== '0' && /NoNewPrivs:\s+1/.test(nnp ?? '') && /^-rws/.test(seen ?? ''),
        figure: `setuid-root id (${seen ?? '?'} inside) runs with euid ${euid}; ${nnp?.replace(/\s+/g, ' ')}`,
      };
    },
  },
  {
    name: 'setuid: a file left in the workspace',
    async run() {
      const out = await inside("cp /bin/true left && chmod 755 left && chmod u+s,g+s left && stat -c '%A' left");
      const inMode = out.output.trim().split('\n')[0];
      const mode = statSync(path.join(ws, 'left')).mode & 0o7777;
      return {
        held: /^-rwsr-s/.test(inMode) && (mode & 0o6000) === 0,
        figure: `set ${inMode} inside; on the host afterwards ${mode.toString(8).padStart(4, '0')}`,
      };
    },
  },
  {
    name: 'identity: user and capabilities',
    async run() {
      const out = await inside("id -u; id -g; grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs)' /proc/self/status");
      const [uid, gid, ...caps] = out.output.trim().split('\n');
      const field = (name: string) => caps.find((l) => l.startsWith(`${name}:`))?.split(/\s+/)[1] ?? '?';
      const zero = (v: string) => /^0+$/.test(v);
      return {
        held: uid !== '0' && zero(field('CapEff')) && zero(field('CapPrm')) && zero(field('CapBnd')) && zero(field('CapAmb')) && field('NoNewPrivs') === '1',
        figure: `uid ${uid} gid ${gid}; CapEff ${field('CapEff')} CapPrm ${field('CapPrm')} CapBnd ${field('CapBnd')} CapAmb ${field('CapAmb')}; NoNewPrivs ${field('NoNewPrivs')}`,
      };
    },
  },
];

async function main(): Promise<number> {
  const info = (await endpoint.client.info()) as { NCPU: number };
  const s = policy.sandbox;
  // What the policy lets a run ask for at most; cpus also within the engine's, as the test-runner checks.
  runner = new DockerTestRunner({ endpoint, image, limits: { memoryMb: s.max_memory_mb, pids: s.max_pids, cpus: Math.min(s.max_cpus, info.NCPU) } });
  ws = await prepareEmptyWorkspace(root, 'probe');
  const l = runner.limits;
  console.log(`sandbox probe: image ${image}, limits memory ${l.memoryMb} MiB, pids ${l.pids}, cpus ${l.cpus} (policy: ${source ?? 'the safe defaults, no ROUNDTABLE_POLICY'}; engine ${endpoint.address}, ${info.NCPU} CPUs)`);
  let bad = 0;
  for (const probe of probes) {
    const started = Date.now();
    let verdict: Verdict;
    try {
      verdict = await probe.run();
    } catch (err) {
      // A probe that cannot judge is not a pass.
      verdict = { held: false, figure: `could not be judged: ${(err as Error).message}` };
    }
    if (!verdict.held) bad++;
    console.log(`${verdict.held ? 'held   ' : 'escaped'}  ${probe.name.padEnd(36)} ${verdict.figure} [${((Date.now() - started) / 1000).toFixed(1)} s]`);
  }
  console.log(bad ? `sandbox probe: ${bad} of ${probes.length} escaped` : `sandbox probe: all ${probes.length} held`);
  return bad ? 1 : 0;
}

main()
  .then((code) => {
    rmSync(root, { recursive: true, force: true });
    process.exit(code);
  })
  .catch((err: Error) => {
    rmSync(root, { recursive: true, force: true });
    console.error(`sandbox probe: ${err.message}`);
    process.exit(2);
  });
