import { describe } from "vitest";
import { brokerIsolationScenarios } from "./broker-isolation.ts";

describe("tenant and feed isolation on Mosquitto with the generated password and ACL files", () => brokerIsolationScenarios("mosquitto"));
