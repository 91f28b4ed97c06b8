/**
 * `patchbay audit --since`: a duration back from now or a full ISO time; anything else (a bare
 * number, a word Date.parse would take, a negative or spaced duration) is a coded usage error.
 */
import { describe, expect, it } from "vitest";
import { parseSince } from "../../src/cli/commands/audit.js";
import { isPatchbayError } from "../../src/errors.js";

const NOW = Date.parse("2026-01-31T12:00:00Z");

describe("patchbay audit --since", () => {
  it("takes seconds, minutes, hours, days and ISO times", () => {
    expect(parseSince("90s", NOW).toISOString()).toBe("2026-01-31T11:58:30.000Z");
    expect(parseSince("10m", NOW).toISOString()).toBe("2026-01-31T11:50:00.000Z");
    expect(parseSince("2h", NOW).toISOString()).toBe("2026-01-31T10:00:00.000Z");
    expect(parseSince("7d", NOW).toISOString()).toBe("2026-01-24T12:00:00.000Z");
    expect(parseSince("2026-01-31T08:00:00Z", NOW).toISOString()).toBe("2026-01-31T08:00:00.000Z");
    expect(parseSince("2026-01-31T08:00:00+02:00", NOW).toISOString()).toBe("2026-01-31T06:00:00.000Z");
  });

  it("refuses everything else with PB_ERR_USAGE naming the flag", () => {
    for (const bad of ["10", "10 m", "-5m", "5w", "March", "yesterday", "", "2026-13-45T99:00:00Z"]) {
      let err: unknown = null;
      try {
        parseSince(bad, NOW);
      } catch (e) {
        err = e;
      }
      expect(isPatchbayError(err), bad).toBe(true);
      expect(err).toMatchObject({ code: "PB_ERR_USAGE", data: { flag: "since" } });
      expect((err as Error).message).toContain("--since");
    }
  });
});
