/**
 * Azure Cost Management budget alerts, as an action group's webhook posts them (test/fixtures/alerts
 * holds Microsoft's documented examples):
 *
 * - `azure-budget`: `{"schemaId": "AIP Budget Notification", "data": {SubscriptionId, BudgetName,
 *   Budget, NotificationThresholdAmount, SpendingAmount, Unit, …}}` (amounts as plain decimals).
 * - `azure-cost-alert`: the common alert schema, `{"schemaId": "azureMonitorCommonAlertSchema", "data":
 *   {"essentials": {monitoringService: "CostAlerts", firedDateTime, …}, "alertContext": {"AlertCategory":
 *   "budgets", "AlertData": {Scope, ThresholdType, BudgetId, BudgetName, BudgetThreshold,
 *   NotificationThresholdAmount, SpentAmount, Unit, …}}}}` (amounts as `$11,111.00`).
 *
 * accountId: the subscription (`SubscriptionId`, or the `/subscriptions/<id>` of `Scope`), else the
 * billing account or the scope itself. budgetId: `BudgetId` when sent, else the name identifies the budget.
 * threshold = NotificationThresholdAmount (an amount); budgetAmount = Budget / BudgetThreshold (the
 * budget's amount, despite its name); amount = the spend. kind: `budget-forecast` for ThresholdType
 * Forecasted, else `budget-threshold` (the AIP schema does not say which, Microsoft sends it for both).
 * period: neither schema names the budget period that was crossed (BudgetStartDate is when the budget
 * began), so it is the UTC month the alert fired: `firedDateTime`, or for the AIP schema the
 * `receivedAt` attribute the push endpoint sets. One alert per budget, threshold and month: a monthly
 * budget's period exactly; a quarterly or annual budget re-alerts at most once a month per threshold.
 * severity: `critical` when the threshold is at least the budget amount, else `warning`. source `azure`.
 */
import { fail } from '../errors';
import type { AlertEvent } from '../events';
import { finishAlertEvent, severityAtLeast } from './alert-common';
import { parseMoney, type Money } from './alert-aws-budgets';
import {
  isBlank,
  isObject,
  optionalCurrency,
  optionalIdentifier,
  own,
  preview,
  requiredIdentifier,
  requiredInstant,
  requiredName,
  type JsonObject,
} from './fields';
import { resolveTenant } from './scope';

export const AIP_BUDGET_SCHEMA = 'AIP Budget Notification';
export const COMMON_ALERT_SCHEMA = 'azureMonitorCommonAlertSchema';
/** The attribute the push endpoint sets to the instant it received the webhook. */
export const RECEIVED_AT_ATTRIBUTE = 'receivedAt';

const SUBSCRIPTION_SCOPE = /^\/subscriptions\/([^/]+)\/?$/i;

export const looksAzureBudget = (message: unknown): boolean =>
  isObject(message) && own(message, 'schemaId') === AIP_BUDGET_SCHEMA;

export const looksAzureCostAlert = (message: unknown): boolean =>
  isObject(message) && own(message, 'schemaId') === COMMON_ALERT_SCHEMA;

const objectAt = (parent: JsonObject, key: string, field: string): JsonObject => {
  const value = own(parent, key);
  return isObject(value)
    ? value
    : fail('missing-field', field, `expected an object, got ${preview(value)}`);
};

const text = (data: JsonObject, key: string): string | undefined => {
  const value = own(data, key);
  return isBlank(value) ? undefined : String(value);
};

const money = (data: JsonObject, key: string, required: boolean): Money | undefined => {
  const value = text(data, key);
  if (value === undefined) return required ? fail('missing-field', key, 'required') : undefined;
  return parseMoney(value, key);
};

const monthOf = (instant: string): string => instant.slice(0, 7);

const accountOf = (data: JsonObject): string => {
  const scope = text(data, 'Scope');
  const fromScope = scope === undefined ? undefined : SUBSCRIPTION_SCOPE.exec(scope)?.[1];
  const account =
    text(data, 'SubscriptionId') ??
    fromScope ??
    text(data, 'BillingAccountId') ??
    text(data, 'BillingProfileId') ??
    scope;
  return account === undefined
    ? fail('missing-field', 'SubscriptionId', 'no SubscriptionId, Scope or BillingAccountId')
    : requiredIdentifier(account, 'SubscriptionId');
};

const oneCurrency = (data: JsonObject, amounts: (Money | undefined)[]): string | undefined => {
  const stated = optionalCurrency(own(data, 'Unit'), 'Unit');
  const currencies = new Set(
    [stated, ...amounts.map((amount) => amount?.currency)].filter(
      (c): c is string => c !== undefined,
    ),
  );
  if (currencies.size > 1)
    fail('invalid-field', 'Unit', `amounts in different currencies: ${[...currencies].join(', ')}`);
  return [...currencies][0];
};

interface BudgetFields {
  data: JsonObject;
  thresholdType: 'actual' | 'forecasted';
  period: string;
  budgetAmountKey: string;
  spendKey: string;
  format: AlertEvent['format'];
}

const budgetAlert = (fields: BudgetFields, attributes: Record<string, string>): AlertEvent => {
  const { data, thresholdType, period, budgetAmountKey, spendKey, format } = fields;
  const threshold = money(data, 'NotificationThresholdAmount', true) as Money;
  const budget = money(data, budgetAmountKey, false);
  const spend = money(data, spendKey, false);
  return finishAlertEvent({
    kind: thresholdType === 'actual' ? 'budget-threshold' : 'budget-forecast',
    format,
    tenant: resolveTenant(attributes),
    source: 'azure',
    accountId: accountOf(data),
    budgetId: optionalIdentifier(own(data, 'BudgetId'), 'BudgetId'),
    budgetName: requiredName(own(data, 'BudgetName'), 'BudgetName'),
    period,
    thresholdType,
    threshold: threshold.value,
    budgetAmount: budget?.value,
    amount: spend?.value,
    currency: oneCurrency(data, [threshold, budget, spend]),
    severity: budget === undefined ? 'warning' : severityAtLeast(threshold.value, budget.value),
  });
};

export const parseAzureBudget = (
  message: JsonObject,
  attributes: Record<string, string>,
): AlertEvent => {
  const receivedAt = own(attributes, RECEIVED_AT_ATTRIBUTE);
  if (isBlank(receivedAt))
    fail(
      'missing-field',
      RECEIVED_AT_ATTRIBUTE,
      'the AIP budget schema names no period: the push endpoint sets the receivedAt attribute',
    );
  return budgetAlert(
    {
      data: objectAt(message, 'data', 'data'),
      thresholdType: 'actual',
      period: monthOf(requiredInstant(receivedAt, RECEIVED_AT_ATTRIBUTE)),
      budgetAmountKey: 'Budget',
      spendKey: 'SpendingAmount',
      format: 'azure-budget',
    },
    attributes,
  );
};

export const parseAzureCostAlert = (
  message: JsonObject,
  attributes: Record<string, string>,
): AlertEvent => {
  const body = objectAt(message, 'data', 'data');
  const essentials = objectAt(body, 'essentials', 'data.essentials');
  const context = objectAt(body, 'alertContext', 'data.alertContext');
  const service = own(essentials, 'monitoringService');
  const category = own(context, 'AlertCategory');
  if (service !== 'CostAlerts' || (!isBlank(category) && category !== 'budgets'))
    fail(
      'unknown-format',
      'data.essentials.monitoringService',
      `a common-schema alert of ${preview(service)}/${preview(category)}, not a CostAlerts budget alert`,
    );
  const data = objectAt(context, 'AlertData', 'data.alertContext.AlertData');
  const stated = text(data, 'ThresholdType')?.toLowerCase();
  if (stated !== undefined && stated !== 'actual' && stated !== 'forecasted')
    fail('invalid-field', 'ThresholdType', `${preview(stated)} is not Actual or Forecasted`);
  return budgetAlert(
    {
      data,
      thresholdType: stated === 'forecasted' ? 'forecasted' : 'actual',
      period: monthOf(requiredInstant(own(essentials, 'firedDateTime'), 'firedDateTime')),
      budgetAmountKey: 'BudgetThreshold',
      spendKey: 'SpentAmount',
      format: 'azure-cost-alert',
    },
    attributes,
  );
};
