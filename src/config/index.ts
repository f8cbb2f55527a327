/**
 * The configuration (docs/reference/operations.md), parsed once at an entry: its types, the parse, the
 * start-up warnings and the masked description for the start-up line. The rest of src/ imports
 * it from here.
 */
export { describeConfig } from './describe';
export { ConfigError } from './error';
export { parseConfig } from './parse';
export type { Config, ConfigVars, HostileInputConfig, MigrationConfig, ShutdownConfig, UpstreamTuning } from './types';
export { configWarnings, MIN_SIGNING_SECRET_BYTES } from './warnings';
