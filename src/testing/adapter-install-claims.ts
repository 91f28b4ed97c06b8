/**
 * The adapter kit's install claims, each in a fresh sandbox with the fake client on PATH: a dry
 * run writes nothing and plans exactly what install writes, install is idempotent, uninstall
 * restores every byte, and the hook commands wired into client configs run.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";
import { shimCommand, shimPath } from "../adapter/state.js";
import { diffSnapshots, seedUserFile, wiredCommands } from "./adapter-sandbox.js";
import { INSTANCE, skipClaim, type AdapterClaim, type AdapterKitContext } from "./adapter-kit-context.js";

export function adapterInstallClaims({
  fixtures,
  s,
  world,
  install,
  uninstall,
  snap,
}: AdapterKitContext): AdapterClaim[] {
  return [
    {
      name: "a dry run writes nothing, and its plan is what install writes",
      run: async () => {
        const sb = world(s().manifest.client.command);
        const before = snap(sb);
        const planned = await install(sb, true);
        assert.equal(planned.status, "planned", planned.error?.message);
        assert.deepEqual(diffSnapshots(before, snap(sb)), [], "the dry run wrote nothing");
        const done = await install(sb);
        assert.equal(done.status, "installed", done.error?.message);
        assert.deepEqual(
          done.changes.map((c) => c.path),
          planned.changes.map((c) => c.path),
        );
        const paths = done.changes.map((c) => c.path);
        const outside = diffSnapshots(before, snap(sb))
          .map((d) => d.slice(0, d.indexOf(": ")))
          .filter(
            (p) =>
              !paths.some((a) => p === a || p.startsWith(a + "/") || a.startsWith(p + "/")) &&
              p !== path.join(sb.stateDir, "installs.json"),
          );
        assert.deepEqual(outside, [], "install wrote only what its plan lists (and its record)");
      },
    },
    {
      name: "installing twice is byte-identical to installing once",
      run: async () => {
        const sb = world(s().manifest.client.command);
        assert.equal((await install(sb)).status, "installed");
        const once = snap(sb);
        const again = await install(sb);
        assert.equal(again.status, "unchanged", again.error?.message);
        assert.deepEqual(diffSnapshots(once, snap(sb)), []);
      },
    },
    {
      name: "uninstall restores the original bytes (user files included); a second uninstall changes nothing",
      run: async () => {
        const sb = world(s().manifest.client.command);
        const plan = await install(sb, true);
        // Seed every merge target with a user file in a non-canonical style: it must come back byte for byte.
        for (const c of plan.changes.filter((x) => x.kind === "merge")) seedUserFile(c.path);
        const before = snap(sb);
        assert.equal((await install(sb)).status, "installed");
        const u = await uninstall(sb);
        assert.equal(u.status, "uninstalled");
        assert.deepEqual(diffSnapshots(before, snap(sb)), []);
        const again = await uninstall(sb);
        assert.equal(again.status, "not-installed");
        assert.deepEqual(diffSnapshots(before, snap(sb)), []);
      },
    },
    {
      name: "hook commands written into client configs are absolute, exist, and exit 0 on a real payload",
      run: async () => {
        const sb = world(s().manifest.client.command);
        const done = await install(sb);
        assert.equal(done.status, "installed", done.error?.message);
        const shim = shimPath(sb.stateDir, INSTANCE);
        accessSync(shim, constants.X_OK);
        const wired = wiredCommands(
          done.changes.filter((c) => c.kind !== "tree").map((c) => c.path),
          shim,
        );
        if (done.changes.some((c) => c.kind === "merge"))
          assert.ok(wired.length > 0, "the client config runs Patchbay's hook shim");
        if (wired.length === 0)
          skipClaim(
            "the install writes no hook command into a client config (its plan has no merge or file that runs Patchbay's hook shim)",
          );
        for (const line of wired) {
          assert.ok(
            line.startsWith(shimCommand(sb.stateDir, INSTANCE)) && path.isAbsolute(shim),
            `${line} runs the absolute shim`,
          );
          const run = spawnSync("/bin/sh", ["-c", line], {
            input: JSON.stringify(fixtures[0]?.payload ?? {}),
            env: sb.env,
            encoding: "utf8",
            timeout: 20_000,
          });
          assert.equal(run.status, 0, `${line} exited ${run.status}: ${run.stderr}`);
        }
      },
    },
  ];
}
