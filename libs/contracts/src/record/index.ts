export * from './record-hash';
export * from './record-signature';
export * from './run-record.schema';
export * from './verify-record';
