/** Azure budget alerts as Microsoft documents them (test/fixtures/alerts/azure-*): fields, period, key. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAlertEvent } from '../../../lambda/core/formats';
import { alertKey } from '../../../lambda/core/keys';
import { record, rejection } from './helpers';

const ALERTS = path.resolve(__dirname, '../../fixtures/alerts');
const sample = (name: string): string => readFileSync(path.join(ALERTS, name), 'utf8');
const RECEIVED = { receivedAt: '2026-11-28T09:15:00Z' };

const parse = (body: string, attributes: Record<string, string> = RECEIVED) =>
  parseAlertEvent(record(body, attributes));

describe('Azure "AIP Budget Notification" (action group webhook)', () => {
  const testAction = sample('azure-budget-aip-test-action.json');

  it('reads subscription, budget, threshold amount, spend and the month it was received', () => {
    expect(parse(testAction)).toEqual({
      kind: 'budget-threshold',
      format: 'azure-budget',
      tenant: 'default',
      source: 'azure',
      accountId: '11111111-1111-1111-1111-111111111111',
      budgetName: 'test-budgetName',
      period: '2026-11',
      thresholdType: 'actual',
      threshold: '8000',
      budgetAmount: '10000',
      amount: '1111.32',
      currency: 'USD',
      severity: 'warning',
    });
  });

  it('the Logic App sample of the budget scenario parses too', () => {
    expect(parse(sample('azure-budget-aip-logic-app-sample.json'))).toMatchObject({
      accountId: '<GUID>',
      budgetName: 'BudgetName',
      threshold: '0.8',
      budgetAmount: '50',
      amount: '100',
    });
  });

  it('a re-send with a higher spend in the same month is the same alert; the next month is another', () => {
    const resent = testAction.replace('"1111.32"', '"2222.00"');
    expect(alertKey(parse(resent))).toBe(alertKey(parse(testAction)));
    expect(alertKey(parse(testAction, { receivedAt: '2026-12-01T00:00:00Z' }))).not.toBe(
      alertKey(parse(testAction)),
    );
  });

  it('another threshold of the same budget is another alert', () => {
    const other = testAction.replace('"8000.0"', '"10000"');
    expect(alertKey(parse(other))).not.toBe(alertKey(parse(testAction)));
    expect(parse(other).severity).toBe('critical');
  });

  it('without the receivedAt attribute it is rejected with the reason', () => {
    expect(rejection(() => parse(testAction, {})).message).toMatch(/receivedAt/);
  });

  it('a missing threshold is rejected naming the field', () => {
    const body = JSON.parse(testAction) as { data: Record<string, unknown> };
    delete body.data.NotificationThresholdAmount;
    expect(rejection(() => parse(JSON.stringify(body))).message).toMatch(
      /NotificationThresholdAmount/,
    );
  });
});

describe('Azure common alert schema, CostAlerts budgets', () => {
  it('actual: amounts with symbols and commas, subscription from Scope, month of firedDateTime', () => {
    expect(parse(sample('azure-common-actual-cost-budget.json'), {})).toEqual({
      kind: 'budget-threshold',
      format: 'azure-cost-alert',
      tenant: 'default',
      source: 'azure',
      accountId: '11111111-1111-1111-1111-111111111111',
      budgetId:
        '/subscriptions/11111111-1111-1111-1111-111111111111/providers/Microsoft.Consumption/budgets/Test_actual_cost_budget',
      budgetName: 'Test_actual_cost_budget',
      period: '2022-12',
      thresholdType: 'actual',
      threshold: '25',
      budgetAmount: '50',
      amount: '11111',
      currency: 'USD',
      severity: 'warning',
    });
  });

  it('forecasted: a budget-forecast alert, critical at the budget amount', () => {
    expect(parse(sample('azure-common-forecasted-budget.json'), {})).toMatchObject({
      kind: 'budget-forecast',
      thresholdType: 'forecasted',
      threshold: '50',
      amount: '999.99',
      severity: 'critical',
    });
  });

  it('a common-schema alert of another service is not taken for a budget alert', () => {
    const metric = {
      schemaId: 'azureMonitorCommonAlertSchema',
      data: { essentials: { monitoringService: 'Platform' }, alertContext: {} },
    };
    expect(rejection(() => parse(JSON.stringify(metric), {})).message).toMatch(/CostAlerts/);
  });
});
