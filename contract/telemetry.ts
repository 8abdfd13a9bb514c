/** CloudWatch namespace of the consumers' EMF metrics; alarms and the dashboard read the same. */
export const METRIC_NAMESPACE = 'BillingDedup';
/** Accepted cost events, dimensions service + tenant and service + tenant + source (docs/threat-model.md). */
export const ACCEPTED_METRIC = 'accepted';
/** Export switches of a source shadowed by another export of the same period (docs/exports.md). */
export const EXPORT_SHADOWED_METRIC = 'exportShadowed';
/** Export manifests dead-lettered because their executionId is already planned with other content (docs/exports.md). */
export const EXECUTION_REUSED_METRIC = 'executionReused';
/**
 * Stream-versus-export drift of an export switch that superseded stream charges (docs/exports.md): the
 * largest |stream − export| of any account-period and currency (display only: the DRIFT records hold the
 * exact figures), the largest |stream − export| / |export| in percent, and the account-periods above
 * `provisionalDriftThreshold`.
 */
export const PROVISIONAL_DRIFT_METRICS = {
  difference: 'provisionalDrift',
  percent: 'provisionalDriftPercent',
  above: 'provisionalDriftAbove',
} as const;
