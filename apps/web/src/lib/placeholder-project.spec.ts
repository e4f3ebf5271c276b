import path from 'node:path';
import { loadProjectConfig } from '@roundtable/contracts';
import { PLACEHOLDER_PROJECT } from './placeholder-project';

const EXAMPLES = path.resolve(__dirname, '../../../../examples');

describe('the New run placeholder', () => {
  it('is a project the api takes as posted: its cassette found under the local policy\'s cassette root', () => {
    const cfg = loadProjectConfig(PLACEHOLDER_PROJECT, { env: {}, variables: 'refuse', resolveCassette: (rel) => path.join(EXAMPLES, rel) });
    expect(cfg.providers.replay).toMatchObject({ type: 'replay', cassette: path.join(EXAMPLES, 'dd-demo/cassette.yaml') });
  });

  it('is the build demo, so its cassette\'s prompt guards hold', () => {
    expect(PLACEHOLDER_PROJECT).toContain('project: dd-demo');
  });
});
