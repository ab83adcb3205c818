/** A PromQL worker that fails on every message with an uncaught error (promql-offload and json-offload tests). */
declare const self: Worker;
self.onmessage = () => {
  throw new Error("worker bug");
};
