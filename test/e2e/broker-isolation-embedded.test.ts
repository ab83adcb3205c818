import { describe } from "vitest";
import { brokerIsolationScenarios } from "./broker-isolation.ts";

describe("tenant and feed isolation on the collector's embedded broker (--auth-file)", () => brokerIsolationScenarios("embedded"));
