import type { Condition } from "../model.ts";
import { availabilityDisplay } from "./availability.ts";
import { compareDisplay } from "./compare.ts";
import { eventDisplay } from "./event.ts";
import { externalDisplay } from "./external.ts";
import { missingDisplay } from "./missing.ts";
import { nelsonDisplay } from "./nelson.ts";
import { rangeDisplay } from "./range.ts";
import { rateDisplay } from "./rate.ts";
import { stringDisplay } from "./string.ts";
import { thresholdDisplay } from "./threshold.ts";

/** The canonical display of a condition (the `displayString` field). */
export function conditionDisplay(c: Condition): string {
  switch (c.type) {
    case "AVAILABILITY":
      return availabilityDisplay(c);
    case "COMPARE":
      return compareDisplay(c);
    case "STRING":
      return stringDisplay(c);
    case "THRESHOLD":
      return thresholdDisplay(c);
    case "RANGE":
      return rangeDisplay(c);
    case "EXTERNAL":
      return externalDisplay(c);
    case "EVENT":
      return eventDisplay(c);
    case "RATE":
      return rateDisplay(c);
    case "MISSING":
      return missingDisplay(c);
    case "NELSON":
      return nelsonDisplay(c);
  }
}
