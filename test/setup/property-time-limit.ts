/**
 * Setup of every test file: a property run that goes on past three minutes stops and fails with
 * the counterexample it holds. Why: one property (random damage of snappy blocks against a
 * reference that at times refused a valid one) ran 15 minutes in a CI run, shrinking, until the
 * stall watchdog killed it (docs/testing.md, "Stalled files"); the properties here take seconds.
 */
import fc from "fast-check";

fc.configureGlobal({ interruptAfterTimeLimit: 3 * 60_000, markInterruptAsFailure: true });
