// A CommonJS consumer: require() of the ES-module package (Node >= 20.19 loads ES modules through require).
const { createHost, PLUGIN_API_VERSION } = require("patchbay-host");
const { definePlugin } = require("patchbay-host/plugin");
if (typeof createHost !== "function" || typeof definePlugin !== "function")
  throw new Error('require("patchbay-host") lacks createHost/definePlugin');
console.log(`require ok: plugin API ${PLUGIN_API_VERSION}`);
