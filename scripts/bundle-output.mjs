// How every Patchbay bundle is written (scripts/bundle-runtime.mjs, scripts/bundle-cli.mjs): ES
// modules for Node, joined only: no minifying (readable frames when something fails) and no source
// maps (a thread with Node's source-map support on would parse a bundle's map as it loads it).
export function bundleOutput(dir, entryFileNames = "[name].js") {
  return { dir, format: "esm", entryFileNames, chunkFileNames: "[name]-[hash].js", minify: false, sourcemap: false };
}
