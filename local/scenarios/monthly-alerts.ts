/** The alert stream: per tenant, each month's GCP budgets and AWS Budgets of every account, then anomalies. */
import { costAnomalies } from './anomalies';
import { awsBudgetNotifications } from './aws-budgets';
import type { SampleDraft } from './draft';
import { gcpBudgetNotifications } from './gcp-budgets';
import { MONTHS, TENANTS } from './tenants';

export const monthlyAlerts = (draft: SampleDraft): void => {
  for (const spec of TENANTS) {
    for (const month of MONTHS) {
      gcpBudgetNotifications(draft, spec, month);
      for (const account of spec.awsAccounts) awsBudgetNotifications(draft, spec, month, account);
    }
    costAnomalies(draft, spec);
  }
};
