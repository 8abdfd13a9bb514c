/** CloudWatch namespace of the consumers' EMF metrics; alarms and the dashboard read the same. */
export const METRIC_NAMESPACE = 'BillingDedup';
