/**
 * AWS Budgets texts of one account and month: ACTUAL and FORECASTED of a monthly budget, re-sent with new
 * spend; and a daily budget crossed on two days (two alerts), each day's alert repeated that day.
 */
import { MONTH_NAMES } from './calendar';
import type { SampleDraft } from './draft';
import { alertOnce } from './logical-alert';
import type { TenantSpec } from './tenants';

export const awsBudgetNotifications = (
  draft: SampleDraft,
  spec: TenantSpec,
  month: string,
  account: string,
): void => {
  const { rng } = draft;
  const [year, m] = month.split('-').map(Number);
  const budgeted = 10_000 + rng.int(0, 10) * 1000;
  const money = (value: number) =>
    `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  const text = (type: 'ACTUAL' | 'FORECASTED', day: number, spend: number) =>
    [
      `AWS Budget Notification ${MONTH_NAMES[m - 1]} ${day}, ${year}`,
      `AWS Account ${account}`,
      '',
      'Dear AWS Customer,',
      '',
      `You requested that we alert you when the ${type} Cost associated with your ${spec.tenant}-${account.slice(-4)}-monthly budget is greater than ${money(budgeted * 0.8)} for the current month. The ${type} Cost associated with this budget is ${money(spend)}. You can find additional details below and by accessing the AWS Budgets dashboard [1].`,
      '',
      `Budget Name: ${spec.tenant}-${account.slice(-4)}-monthly`,
      'Budget Type: Cost',
      `Budgeted Amount: ${money(budgeted)}`,
      `Alert Type: ${type}`,
      `Alert Threshold: > ${money(budgeted * 0.8)}`,
      `${type} Amount: ${money(spend)}`,
      '',
      '[1] https://console.aws.amazon.com/billing/home#/budgets',
      '',
    ].join('\n');
  for (const type of ['ACTUAL', 'FORECASTED'] as const) {
    alertOnce(
      draft,
      Array.from({ length: rng.int(1, 3) }, (_, copy) => {
        const body = text(type, 20 + copy, budgeted * (0.8 + copy * 0.03 + rng.next() * 0.02));
        return { message: body, attributes: { tenant: spec.tenant } };
      }),
      `AWS Budgets ${type}`,
    );
  }
};

/** A daily cost budget as AWS words it ("… per day. Yesterday, …"): crossed on two consecutive days. */
export const awsDailyBudgetNotifications = (
  draft: SampleDraft,
  spec: TenantSpec,
  month: string,
  account: string,
): void => {
  const { rng } = draft;
  const [year, m] = month.split('-').map(Number);
  const budget = `${spec.tenant}-${account.slice(-4)}-daily`;
  const text = (day: number, spend: string) =>
    [
      `AWS Budget Notification ${MONTH_NAMES[m - 1]} ${String(day).padStart(2, '0')}, ${year}`,
      `AWS Account ${account}`,
      '',
      'Dear AWS Customer,',
      '',
      `You requested that we alert you when the ACTUAL Cost associated with your ${budget} budget is greater than $40.00 per day. Yesterday, the ACTUAL Cost associated with this budget is $${spend}. You can find additional details below and by accessing the AWS Budgets dashboard [1].`,
      '',
      `Budget Name: ${budget}`,
      'Budget Type: Cost',
      'Budgeted Amount: $50.00',
      'Alert Type: ACTUAL',
      'Alert Threshold: > $40.00',
      `ACTUAL Amount: $${spend}`,
      '',
      '[1] https://console.aws.amazon.com/costmanagement/home#/budgets',
      '',
    ].join('\n');
  for (const day of [14, 15]) {
    alertOnce(
      draft,
      Array.from({ length: rng.int(1, 2) }, (_, copy) => ({
        message: text(day, (41 + copy * 2 + rng.int(0, 9)).toFixed(2)),
        attributes: { tenant: spec.tenant },
      })),
      `AWS Budgets daily budget, day ${day} (repeated that day)`,
    );
  }
};
