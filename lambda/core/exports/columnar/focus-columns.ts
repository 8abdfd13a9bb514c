/**
 * The columnar form of the FOCUS row mapping (`parseFocusRow`). Every column that mapping reads can
 * refuse a row (an id with an invisible character, a description too long, tags that are no JSON
 * object, …), so every one is read and checked, once per distinct value, with the mapping's own
 * readers; `NULL`, `null` and `(null)` cells are blank, as there.
 */
import { MAX_SIGNIFICANT_DIGITS } from '../../decimal';
import { CHARGE_CATEGORIES } from '../../events';
import { CHARGE_CLASSES } from '../../formats/cost-common';
import { FOCUS_SERVICE_CODE, focusCell, providerSlug } from '../../formats/cost-focus';
import {
  isBlank,
  optionalDecimal,
  optionalEnum,
  optionalIdentifier,
  optionalInstant,
  optionalString,
  optionalTags,
  requiredCurrency,
  requiredEnum,
  requiredInstant,
} from '../../formats/fields';
import { resolveSource } from '../../formats/scope';
import { FOCUS_COLUMNS_READ } from '../columns-read';
import type { RowContext } from '../rows';
import {
  amountCheck,
  attempt,
  BLANK,
  codeCheck,
  ROW_PATH,
  type Booking,
  type Check,
  type ColumnarMapping,
} from './column-checks';
import type { ExactAmount } from './exact-sum';
import type { Dimension } from './group-totals';

/** A decimal `toDecimal` accepts as it is when it has at most 38 characters. */
const PLAIN = /^-?\d+(\.\d+)?$/;

const index = (column: string): number => FOCUS_COLUMNS_READ.indexOf(column);
const PROVIDER = index('ProviderName');
const SERVICE_PROVIDER = index('ServiceProviderName');
const BILLING_ACCOUNT = index('BillingAccountId');
const SUB_ACCOUNT = index('SubAccountId');
const BILLING_PERIOD = index('BillingPeriodStart');
const CHARGE_START = index('ChargePeriodStart');
const CHARGE_END = index('ChargePeriodEnd');
const AMOUNT = index('BilledCost');
const CURRENCY = index('BillingCurrency');
const SERVICE = index('ServiceName');
const SERVICE_CODE = index(FOCUS_SERVICE_CODE);

/** A check of the cell with the NULL texts blank. */
const ofCell =
  <T>(read: (value: unknown) => T): ((value: unknown) => T) =>
  (value) =>
    read(focusCell(value));

const provider = (column: string): Check =>
  attempt(
    ofCell((value) => {
      if (isBlank(value)) return BLANK;
      return providerSlug(optionalString(value, column) as string, column);
    }),
  );

const identifier = (column: string): Check =>
  attempt(ofCell((value) => optionalIdentifier(value, column)));

const text = (column: string): Check => attempt(ofCell((value) => optionalString(value, column)));

export const focusColumnar = (
  [accounts, currencies, services]: readonly Dimension[],
  context: RowContext,
  attributes: Record<string, string>,
): ColumnarMapping => {
  const checks: Check[] = FOCUS_COLUMNS_READ.map(identifier);
  checks[PROVIDER] = provider('ProviderName');
  checks[SERVICE_PROVIDER] = provider('ServiceProviderName');
  const accountCheck = (column: string) =>
    codeCheck(
      accounts,
      ofCell((value) => optionalIdentifier(value, column)),
    );
  checks[BILLING_ACCOUNT] = accountCheck('BillingAccountId');
  checks[SUB_ACCOUNT] = accountCheck('SubAccountId');
  checks[BILLING_PERIOD] = attempt(ofCell((value) => optionalInstant(value, 'BillingPeriodStart')));
  checks[CHARGE_START] = attempt(ofCell((value) => requiredInstant(value, 'ChargePeriodStart')));
  checks[CHARGE_END] = attempt(ofCell((value) => optionalInstant(value, 'ChargePeriodEnd')));
  checks[index('ChargeCategory')] = attempt(
    ofCell((value) => requiredEnum(value, 'ChargeCategory', CHARGE_CATEGORIES)),
  );
  checks[index('ChargeClass')] = attempt(
    ofCell((value) => optionalEnum(value, 'ChargeClass', CHARGE_CLASSES)),
  );
  for (const column of ['ChargeDescription', 'PricingCategory', 'ChargeFrequency', 'ConsumedUnit'])
    checks[index(column)] = text(column);
  checks[SERVICE] = codeCheck(
    services,
    ofCell((value) => optionalString(value, 'ServiceName')),
    null,
  );
  checks[SERVICE_CODE] = codeCheck(
    services,
    ofCell((value) => optionalString(value, FOCUS_SERVICE_CODE)),
  );
  const amount = amountCheck('BilledCost');
  checks[AMOUNT] = (value) => amount(focusCell(value));
  checks[CURRENCY] = codeCheck(
    currencies,
    ofCell((value) => requiredCurrency(value, 'BillingCurrency')),
  );
  const quantity = attempt(ofCell((value) => optionalDecimal(value, 'ConsumedQuantity')));
  checks[index('ConsumedQuantity')] = (value) =>
    typeof value === 'string' && value.length <= MAX_SIGNIFICANT_DIGITS && PLAIN.test(value)
      ? true
      : quantity(value);
  checks[index('Tags')] = attempt(ofCell((value) => optionalTags(value, 'Tags')));
  // A row without a provider takes the source of the export's binding; without one it is refused.
  const sourceKnown = attempt(() => resolveSource(attributes))(undefined) !== ROW_PATH;
  return {
    format: 'focus',
    columns: FOCUS_COLUMNS_READ,
    checks,
    decide: (outcomes, booking: Booking) => {
      for (const outcome of outcomes) if (outcome === ROW_PATH) return false;
      if (outcomes[PROVIDER] === BLANK && outcomes[SERVICE_PROVIDER] === BLANK && !sourceKnown) {
        return false;
      }
      const account = (outcomes[SUB_ACCOUNT] ?? outcomes[BILLING_ACCOUNT]) as number | undefined;
      if (account === undefined) return false;
      const start = outcomes[CHARGE_START] as string;
      const end = outcomes[CHARGE_END] as string | undefined;
      if (end !== undefined && end < start) return false;
      const period = ((outcomes[BILLING_PERIOD] as string | undefined) ?? start).slice(0, 7);
      if (period !== context.billingPeriod) return false;
      booking.codes[0] = account;
      booking.codes[1] = outcomes[CURRENCY] as number;
      booking.codes[2] = (outcomes[SERVICE_CODE] ?? outcomes[SERVICE]) as number;
      booking.amount = outcomes[AMOUNT] as ExactAmount;
      return true;
    },
  };
};
