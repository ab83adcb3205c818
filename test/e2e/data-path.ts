import { afterEach, it } from "vitest";
import { expectExactlyOnce, pushAll, System } from "./harness.ts";

/**
 * The data-path guarantees, run against one broker setup: 100,000 points pushed through an
 * agent arrive exactly once at the collector despite (a) the broker being down for 20 s,
 * (b) the collector being SIGKILLed and restarted, (c) the agent being SIGKILLed and restarted.
 */
export function dataPathScenarios(broker: "embedded" | "mosquitto"): void {
  let sys: System | undefined;
  afterEach(async () => {
    await sys?.stop();
    sys = undefined;
  });

  /** `disrupt` runs before request i; what it passes to `background` runs while the push goes on. */
  async function run(name: string, disrupt: (sys: System, i: number, background: (p: Promise<void>) => void) => Promise<void> | void): Promise<void> {
    sys = new System({ broker, tenant: "e2e", feed: `edge-${name}` });
    await sys.start();
    const s = sys;
    const base = Date.now() - 60_000;
    const started = performance.now();
    const pending: Promise<void>[] = [];
    await pushAll(s.agentUrl, base, 100, (i) => disrupt(s, i, (p) => pending.push(p)));
    await Promise.all(pending);
    await expectExactlyOnce(s, base, 90_000);
    process.stdout.write(`e2e ${broker} ${name}: 100000 points delivered exactly once in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  }

  it("(a) survives the broker being down for 20 s", async () => {
    await run("broker-down", (s, i, background) => {
      if (i !== 20) return;
      // With the embedded broker, the broker is down when its collector is.
      const p = s.o.broker === "mosquitto" ? s.mosquitto! : s.collector;
      background(
        (async () => {
          await p.kill("SIGTERM");
          await Bun.sleep(20_000);
          if (p === s.collector) await s.startCollector();
          else await s.startMosquitto();
        })(),
      );
    });
  }, 180_000);

  it("(b) survives the collector being killed with SIGKILL and restarted", async () => {
    await run("collector-kill", (s, i, background) => {
      if (i !== 30 && i !== 70) return;
      background(
        (async () => {
          await s.collector.kill("SIGKILL");
          await Bun.sleep(1000);
          await s.startCollector();
        })(),
      );
    });
  }, 180_000);

  it("(c) survives the agent being killed with SIGKILL and restarted", async () => {
    await run("agent-kill", async (s, i) => {
      if (i !== 30 && i !== 70) return;
      // Awaited: the pusher retries whatever the dead agent did not answer with 200.
      await s.agent.kill("SIGKILL");
      await s.startAgent();
    });
  }, 180_000);
}
