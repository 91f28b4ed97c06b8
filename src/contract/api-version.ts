/**
 * The plugin API this host provides; a plugin's "patchbay" range must include it. Its own module so
 * `patchbay --version` need not load zod.
 */
export const PLUGIN_API_VERSION = "1.0.0";
