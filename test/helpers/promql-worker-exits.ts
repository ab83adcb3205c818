/** A PromQL worker that ends its thread at the first message, as a crash would (promql-offload and json-offload tests). */
declare const self: Worker;
self.onmessage = () => process.exit(3);
