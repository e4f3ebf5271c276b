export * from './log-redaction';
export * from './json-logger';
export * from './readiness';
export * from './roundtable-metrics';
export * from './queue-depth';
export * from './ops-server';
export * from './terminus-readiness';
export * from './tracing';
