export * from './run-event-log';
export * from './run-event-publisher';
export * from './run-event-json';
export * from './run-record';
