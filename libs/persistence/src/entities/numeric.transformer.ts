import type { ValueTransformer } from 'typeorm';

/**
 * node-postgres returns `numeric` and `bigint` as strings so that no precision is lost in
 * transit. Our money columns are numeric(12,6) and our bigint ids stay far below 2^53, so a
 * JS number is exact for both and callers never have to remember to parse.
 */
export const numberFromString: ValueTransformer = {
  to: (value: unknown) => value,
  from: (value: string | number | null) => (value === null || value === undefined ? value : Number(value)),
};
