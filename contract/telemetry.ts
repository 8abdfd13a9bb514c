/** CloudWatch namespace of the consumers' EMF metrics; alarms and the dashboard read the same. */
export const METRIC_NAMESPACE = 'BillingDedup';
/** Accepted cost events, dimensions service + tenant and service + tenant + source (docs/threat-model.md). */
export const ACCEPTED_METRIC = 'accepted';
/** Export switches of a source shadowed by another export of the same period (docs/exports.md). */
export const EXPORT_SHADOWED_METRIC = 'exportShadowed';
/** Export manifests dead-lettered because their executionId is already planned with other content (docs/exports.md). */
export const EXECUTION_REUSED_METRIC = 'executionReused';
