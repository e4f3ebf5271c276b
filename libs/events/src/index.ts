export * from './run-event-log';
export * from './run-event-publisher';
export * from './outbox';
export * from './run-event-json';
