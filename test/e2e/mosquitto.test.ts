import { describe } from "vitest";
import { dataPathScenarios } from "./data-path.ts";

describe("data path through Mosquitto (a private instance on an ephemeral port)", () => dataPathScenarios("mosquitto"));
