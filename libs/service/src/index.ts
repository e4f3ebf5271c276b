export * from './connect-redis';
export * from './service-infra';
export * from './service-ops';
export * from './run-service';
export * from './outbox';
export * from './heap-growth';
