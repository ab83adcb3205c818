/** The tenant has not subscribed the metric. */
export class SubscriptionNotFoundError extends Error {
  constructor(tenant: string, metricId: string) {
    super(`Subscription of metric ${metricId} not found for tenant ${tenant}`);
  }
}

/** The tenant already subscribed the metric. */
export class SubscriptionExistsError extends Error {
  constructor(tenant: string, metricId: string) {
    super(`Metric ${metricId} is already subscribed for tenant ${tenant}`);
  }
}
