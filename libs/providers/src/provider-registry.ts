import type { ProviderConfig } from '@roundtable/contracts';
import { Provider, ProviderError } from './provider';
import { ReplayProvider } from './replay/replay.provider';

/** Builds the adapter for a provider entry of a project file. */
export function createProvider(name: string, cfg: ProviderConfig): Provider {
  switch (cfg.type) {
    case 'replay':
      return new ReplayProvider(name, cfg.cassette, cfg.latency_ms);
    default:
      throw new ProviderError(
        'UNSUPPORTED_PROVIDER',
        `provider "${name}" has type ${cfg.type}, which this build of the provider-worker does not run yet; use type replay`,
      );
  }
}
