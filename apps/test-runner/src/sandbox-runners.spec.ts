import { DockerTestRunner, ProcessTestRunner } from '@roundtable/sandbox';
import { SandboxRunners } from './sandbox-runners';

describe('SandboxRunners.for', () => {
  const runners = new SandboxRunners({ image: 'roundtable/sandbox:env', dockerHost: 'unix:///nonexistent.sock' });

  it('gives the Docker sandbox with the SANDBOX_IMAGE default when the config asks for nothing', () => {
    for (const sandbox of [undefined, { runner: 'docker' as const }]) {
      const r = runners.for(sandbox);
      expect(r).toBeInstanceOf(DockerTestRunner);
      expect(r.kind).toBe('docker');
      expect((r as DockerTestRunner).image).toBe('roundtable/sandbox:env');
    }
  });

  it("takes the project's image and limits, defaults for the rest", () => {
    const r = runners.for({ runner: 'docker', image: 'team/py312:1', memory_mb: 2048, pids: 512 }) as DockerTestRunner;
    expect(r.image).toBe('team/py312:1');
    expect(r.limits).toEqual({ memoryMb: 2048, cpus: 1, pids: 512, tmpfsMb: 256 });
  });

  it('gives the plain process runner only for sandbox: process', () => {
    const r = runners.for({ runner: 'process' });
    expect(r).toBeInstanceOf(ProcessTestRunner);
    expect(r.kind).toBe('process');
  });
});
