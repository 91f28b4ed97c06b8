/**
 * CLI exit codes: a compatibility contract (SPEC.md), numeric slots never change meaning. Every
 * catalogue entry names the slot the CLI exits with; apart so the catalogue, the error class and
 * the CLI share one definition.
 */
export const EXIT = Object.freeze({ OK: 0, UNHEALTHY: 1, USAGE: 2, PLUGIN_LOAD: 3 });
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
