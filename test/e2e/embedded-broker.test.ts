import { describe } from "vitest";
import { dataPathScenarios } from "./data-path.ts";

describe("data path through the collector's embedded broker", () => dataPathScenarios("embedded"));
