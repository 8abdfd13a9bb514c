/**
 * An Azure action-group webhook body: a budget alert in the "AIP Budget Notification" schema or the
 * common alert schema (`formats/alert-azure-budget.ts`), published to the alerts topic with the instant
 * the endpoint received it (the AIP schema's period comes from it).
 */
import {
  RECEIVED_AT_ATTRIBUTE,
  looksAzureBudget,
  looksAzureCostAlert,
} from '../formats/alert-azure-budget';
import { preview } from '../formats/fields';
import { alertPublication, type Publication } from './publication';
import { refuse, type Refusal } from './refusal';

export const planAzureWebhook = (
  body: unknown,
  tenant: string,
  receivedAt: Date,
): Publication | Refusal => {
  if (!looksAzureBudget(body) && !looksAzureCostAlert(body))
    return refuse(
      400,
      'malformed-body',
      `not an Azure budget alert: schemaId ${preview((body as { schemaId?: unknown } | null)?.schemaId)}`,
    );
  return alertPublication(
    body as Record<string, unknown>,
    { [RECEIVED_AT_ATTRIBUTE]: receivedAt.toISOString() },
    tenant,
  );
};
