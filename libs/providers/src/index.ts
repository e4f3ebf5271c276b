export * from './provider';
export * from './replay/cassette';
export * from './replay/replay.provider';
export * from './provider-registry';
