import { BuildRole, DEFAULT_OPERATOR_POLICY, loadAnyProjectConfig, type ProviderWorkerRecord } from '@roundtable/contracts';
import { unservedProviders } from './provider-availability.check';

const worker = (providers: string[], keys: Record<string, boolean> = {}): ProviderWorkerRecord => ({
  worker_id: `w-${providers.join('-')}`,
  host: 'h',
  pid: 1,
  providers,
  keys,
  clis: {},
  concurrency: 1,
  started_at: '2026-01-01T00:00:00.000Z',
  heartbeat_at: '2026-01-01T00:00:00.000Z',
});

const ROLES = BuildRole.options;
function build(agents: Record<string, { provider: string; fallback?: string }>) {
  return loadAnyProjectConfig(
    {
      project: 'p',
      objective: 'o',
      providers: {
        replay: { type: 'replay', cassette: '/c.yaml' },
        anthropic: { type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' },
        nokey: { type: 'anthropic', api_key_env: 'NOT_A_POLICY_KEY' },
      },
      agents: Object.fromEntries(ROLES.map((r) => [r, { model: 'm', ...(agents[r] ?? { provider: 'replay' }) }])),
    },
    { env: {}, variables: 'refuse' },
  );
}

describe('unservedProviders', () => {
  it('counts a fallback as used', () => {
    const cfg = build({ critic: { provider: 'replay', fallback: 'anthropic' } });
    expect(unservedProviders(cfg, [worker(['replay'])], DEFAULT_OPERATOR_POLICY).map((u) => u.provider)).toEqual(['anthropic']);
  });

  it('is satisfied by one serving worker that has the key, whatever the others lack', () => {
    const cfg = build({ critic: { provider: 'anthropic' } });
    const workers = [worker(['replay']), worker(['anthropic'], { ANTHROPIC_API_KEY: false }), worker(['*'], { ANTHROPIC_API_KEY: true })];
    expect(unservedProviders(cfg, workers, DEFAULT_OPERATOR_POLICY)).toEqual([]);
  });

  it('leaves a key the policy does not hold to the policy check (never advises setting it)', () => {
    const cfg = build({ critic: { provider: 'nokey' } });
    expect(unservedProviders(cfg, [worker(['replay'])], DEFAULT_OPERATOR_POLICY)).toEqual([]);
  });
});
