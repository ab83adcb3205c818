/** A PromQL worker that never answers (an endless loop; promql-offload tests). */
declare const self: Worker;
self.onmessage = () => {
  for (;;) {}
};
