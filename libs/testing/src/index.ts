export * from './service-processes';
export * from './redis-prefix';
export * from './wait-for';
