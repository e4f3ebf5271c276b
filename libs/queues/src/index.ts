export * from './redis-connection';
export * from './queue-defaults';
export * from './infra-error';
export * from './job-producer';
export * from './typed-worker';
export * from './run-service';
export * from './service-infra';
export * from './service-ops';
