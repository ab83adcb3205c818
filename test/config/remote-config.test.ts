/**
 * Remote configuration's one schema (src/agent-config/remote.ts) and its rules: what may be set
 * remotely, the merge with the local configuration and pins, which revision a feed runs and its
 * state (collector/fleet/config-rules.ts), and live options applied all or nothing.
 */
import { describe, expect, it } from "vitest";
import { configState, desiredRevision, parseRevision, reaches } from "../../collector/fleet/config-rules.ts";
import type { ConfigRevision } from "../../collector/store/fleet/types.ts";
import { parseTags, pinnedOptions } from "../../src/agent-config/fleet.ts";
import { mergeRemote, readRemoteConfig, remoteConfigProblem } from "../../src/agent-config/remote.ts";
import { LiveOptions } from "../../src/config/live-options.ts";
import { ReloadRegistry } from "../../src/config/reload.ts";
import { createLogger } from "../../src/log/logger.ts";

const log = createLogger("silent");

describe("the remote configuration schema", () => {
  it("converts values as the agent's file does and refuses what it would refuse", () => {
    const v = readRemoteConfig({ "host-interval": "30s", "buffer-max-bytes": "64MiB", "host-include": "cpu_*,memory_*", "log-level": "DEBUG", inputs: { statsd: { udp: "127.0.0.1:8125" } } });
    expect(v["host-interval"]).toBe(30_000);
    expect(v["buffer-max-bytes"]).toBe(64 * 1024 ** 2);
    expect(v["host-include"]).toEqual(["cpu_*", "memory_*"]);
    expect(v["log-level"]).toBe("debug");
    expect((v.inputs as { statsd: { udp: string; flush_interval: number } }).statsd).toMatchObject({ udp: "127.0.0.1:8125", flush_interval: 10_000 });
    expect(remoteConfigProblem({})).toBeUndefined();
    expect(remoteConfigProblem([])).toMatch(/must be an object/);
    expect(remoteConfigProblem({ "buffer-max-age": "1s" })).toMatch(/config\.buffer-max-age: "1s" must be between 1m and 365d/);
    expect(remoteConfigProblem({ actions: {} })).toMatch(/config\.actions: not an option a remote configuration can set/);
    expect(remoteConfigProblem({ password: "x" })).toMatch(/not an option a remote configuration can set/);
    expect(remoteConfigProblem({ "log-level": null })).toMatch(/leave the option out/);
    expect(remoteConfigProblem({ inputs: { prometheus: [{ job: "a", targets: ["h:1"] }, { job: "a", targets: ["h:2"] }] } })).toMatch(/job "a" is configured twice/);
  });

  it("lays remote values over local ones, except the options the local file pins", () => {
    const local = { "log-level": "info", "host-interval": 10_000, tenant: "acme" };
    const remote = readRemoteConfig({ "log-level": "debug", "host-interval": "1m" });
    expect(mergeRemote(local, remote, new Set())).toEqual({ values: { "log-level": "debug", "host-interval": 60_000, tenant: "acme" }, kept: [] });
    expect(mergeRemote(local, remote, new Set(["log-level"]))).toEqual({ values: { "log-level": "info", "host-interval": 60_000, tenant: "acme" }, kept: ["log-level"] });
    expect(mergeRemote(local, remote, "all")).toEqual({ values: local, kept: ["log-level", "host-interval"] });
    expect(pinnedOptions({ pin: ["*"] })).toBe("all");
    expect([...(pinnedOptions({ pin: ["inputs"] }) as Set<string>)]).toEqual(["inputs"]);
    expect(() => pinnedOptions({ pin: ["tenant"] })).toThrow(/--pin: tenant is not an option a remote configuration can set/);
    expect(parseTags(["role=edge", "site=paris"])).toEqual({ role: "edge", site: "paris" });
    expect(() => parseTags(["role"])).toThrow(/the value of role/);
    expect(() => parseTags(["9x=1"])).toThrow(/not key=value/);
  });
});

describe("revisions on the collector", () => {
  const rev = (revision: number, target: ConfigRevision["target"]): ConfigRevision => ({ tenant: "t", revision, target, config: {}, author: "a", at: revision });

  it("checks a revision's target and configuration", () => {
    expect(parseRevision({ target: { tags: { role: "edge" } }, config: { "log-level": "warn" }, comment: "quiet" })).toEqual({ target: { tags: { role: "edge" } }, config: { "log-level": "warn" }, comment: "quiet" });
    expect(() => parseRevision({ target: { tags: { role: "edge" } }, config: { "log-level": "loud" } })).toThrow(/"loud" is not one of debug, info, warn, error, silent/);
    expect(() => parseRevision({ target: { feeds: ["a"] }, config: {} })).toThrow(/target/);
    expect(() => parseRevision({ target: { all: true }, config: {}, extra: 1 })).toThrow();
    expect(() => parseRevision({ target: { all: true }, config: { inputs: { prometheus: [{ job: "x".repeat(300_000), targets: ["h:1"] }] } } })).toThrow(/larger than 256 KiB/);
  });

  it("runs the newest revision that reaches a feed, whole", () => {
    const newestFirst = [rev(4, { feed: "web-9" }), rev(3, { tags: { role: "edge", site: "paris" } }), rev(2, { tags: { role: "edge" } }), rev(1, { all: true })];
    expect(reaches({ tags: { role: "edge", site: "paris" } }, "x", { role: "edge" })).toBe(false);
    expect(desiredRevision(newestFirst, "web-1", { role: "edge", site: "paris" })?.revision).toBe(3);
    expect(desiredRevision(newestFirst, "web-2", { role: "edge" })?.revision).toBe(2);
    expect(desiredRevision(newestFirst, "db-1", { role: "db" })?.revision).toBe(1);
    expect(desiredRevision(newestFirst, "web-9", {})?.revision).toBe(4);
    expect(desiredRevision([], "web-9", {})).toBeUndefined();
  });

  it("names the state as OpAMP's RemoteConfigStatus does", () => {
    const report = (revision: number, state: "applied" | "failed", running: number) => ({ tenant: "t", feed: "f", revision, state, running, at: 0 });
    expect(configState(0, undefined)).toBe("UNSET");
    expect(configState(3, undefined)).toBe("APPLYING");
    expect(configState(3, report(2, "applied", 2))).toBe("APPLYING");
    expect(configState(3, report(3, "applied", 3))).toBe("APPLIED");
    expect(configState(3, report(3, "failed", 2))).toBe("FAILED");
    // A newer revision than the failed one is pending again.
    expect(configState(4, report(3, "failed", 2))).toBe("APPLYING");
    expect(configState(0, report(3, "applied", 3))).toBe("APPLYING");
  });
});

describe("live options", () => {
  it("applies an overlay all or nothing, and SIGHUP reloads under it", async () => {
    const registry = new ReloadRegistry();
    const applied: string[] = [];
    registry.register({ what: "a", options: ["a"], apply: (v) => void applied.push(`a=${v.a}`) });
    registry.register({
      what: "b",
      options: ["b"],
      apply: (v) => {
        if (v.b === "bad") throw new Error("cannot");
        applied.push(`b=${v.b}`);
      },
    });
    const specs = [
      { name: "a", kind: "string" as const, help: "", reloadable: true },
      { name: "b", kind: "string" as const, help: "", reloadable: true },
    ];
    const live = new LiveOptions(specs, registry, { a: "1", b: "1" }, log);
    expect(await live.setOverlay((l) => ({ ...l, a: "2", b: "bad" }))).toEqual([{ what: "b", err: "cannot" }]);
    // a was applied, then put back.
    expect(applied).toEqual(["a=2", "a=1"]);
    expect(live.values).toEqual({ a: "1", b: "1" });
    expect(await live.setOverlay((l) => ({ ...l, a: "3" }))).toEqual([]);
    expect(live.values).toEqual({ a: "3", b: "1" });
    // A local change of b applies; the overlay's a stays.
    await live.reloadLocal({ a: "1", b: "2" });
    expect(live.values).toEqual({ a: "3", b: "2" });
    expect(live.localValues).toEqual({ a: "1", b: "2" });
  });
});
