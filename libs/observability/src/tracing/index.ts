export * from './trace-attributes';
export * from './in-span';
export * from './start-tracing';
export * from './trace-export.lifecycle';
