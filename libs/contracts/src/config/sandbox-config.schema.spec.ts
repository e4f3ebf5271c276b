import { ProjectConfig } from './project-config.schema';
import { SandboxConfig } from './sandbox-config.schema';

const minimal = {
  project: 'p',
  objective: 'o',
  providers: { replay: { type: 'replay', cassette: 'c.yaml' } },
  agents: Object.fromEntries(
    ['proposer', 'critic', 'reviser', 'engineer', 'validator', 'synthesizer'].map((r) => [r, { provider: 'replay', model: 'm' }]),
  ),
};

describe('SandboxConfig', () => {
  it('defaults to the docker sandbox, so existing project files still load unchanged', () => {
    expect(ProjectConfig.parse(minimal).sandbox).toEqual({ runner: 'docker' });
  });

  it.each([
    ['process', { runner: 'process' }],
    ['docker', { runner: 'docker' }],
  ])('accepts the shorthand %j', (input, expected) => {
    expect(SandboxConfig.parse(input)).toEqual(expected);
    expect(ProjectConfig.parse({ ...minimal, sandbox: input }).sandbox).toEqual(expected);
  });

  it('accepts an image and limits for the docker runner; runner defaults to docker', () => {
    expect(SandboxConfig.parse({ image: 'my/sandbox:py312', memory_mb: 2048, cpus: 1.5, pids: 512 })).toEqual({
      runner: 'docker',
      image: 'my/sandbox:py312',
      memory_mb: 2048,
      cpus: 1.5,
      pids: 512,
    });
  });

  it('refuses limits on the process runner, which cannot enforce them', () => {
    const r = SandboxConfig.safeParse({ runner: 'process', memory_mb: 512 });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.message).join('\n')).toMatch(/docker runner only/);
  });

  it.each([
    [{ runner: 'podman' }],
    ['none'],
    [{ runner: 'docker', memory_mb: 8 }],
    [{ runner: 'docker', cpus: 0 }],
    [{ runner: 'docker', pids: 2.5 }],
    [{ runner: 'docker', image: '' }],
    [{ runner: 'docker', network: 'host' }],
  ])('refuses %j', (input) => {
    expect(SandboxConfig.safeParse(input).success).toBe(false);
  });
});
