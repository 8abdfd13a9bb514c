/**
 * The alert stream: per tenant, each month's GCP budgets and AWS Budgets of every account, then anomalies;
 * then the anomalies of the management account delivered by SNS and by EventBridge.
 */
import { costAnomalies, gcpAnomalies } from './anomalies';
import { anomalyEvents } from './anomaly-events';
import { awsBudgetNotifications, awsDailyBudgetNotifications } from './aws-budgets';
import type { SampleDraft } from './draft';
import { gcpBudgetNotifications } from './gcp-budgets';
import { MONTHS, TENANTS } from './tenants';

export const monthlyAlerts = (draft: SampleDraft): void => {
  for (const spec of TENANTS) {
    for (const month of MONTHS) {
      gcpBudgetNotifications(draft, spec, month);
      for (const account of spec.awsAccounts) awsBudgetNotifications(draft, spec, month, account);
    }
    awsDailyBudgetNotifications(draft, spec, MONTHS[MONTHS.length - 1], spec.awsAccounts[0]);
    costAnomalies(draft, spec);
    gcpAnomalies(draft, spec);
  }
  anomalyEvents(draft);
};
