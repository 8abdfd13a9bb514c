/**
 * The columnar form of the CUR row mapping (`parseCurRow`, CUR 2.0 and legacy CUR Parquet names). Only
 * the columns that can refuse a row or that a total is made of are read: the two costs, the billing
 * period, the usage start and end, the usage account, the currency and the product code. The others
 * the mapping reads (payer, line item type, resource, invoice, description) never refuse a row and
 * are not part of a chunk's totals, so they are not decoded.
 */
import { CUR_SNAKE_CASE, label } from '../../formats/cost-cur';
import {
  isBlank,
  optionalInstant,
  requiredCurrency,
  requiredIdentifier,
  requiredInstant,
} from '../../formats/fields';
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

const NAMES = CUR_SNAKE_CASE;

export const CUR_COLUMNAR_COLUMNS = [
  NAMES.netUnblendedCost,
  NAMES.unblendedCost,
  NAMES.billingPeriodStart,
  NAMES.usageStart,
  NAMES.usageEnd,
  NAMES.usageAccountId,
  NAMES.currency,
  NAMES.productCode,
] as const;

const [NET, UNBLENDED, PERIOD, START, END, ACCOUNT, CURRENCY, PRODUCT] = CUR_COLUMNAR_COLUMNS.map(
  (_, index) => index,
);

export const curColumnar = (
  [accounts, currencies, services]: readonly Dimension[],
  context: RowContext,
): ColumnarMapping => {
  const net = amountCheck(NAMES.netUnblendedCost);
  const checks: Check[] = [];
  checks[NET] = (value) => (isBlank(value) ? BLANK : net(value));
  checks[UNBLENDED] = amountCheck(NAMES.unblendedCost);
  // The row's billing period is the month of its billing period start: in the export's, or the row path.
  checks[PERIOD] = attempt((value) =>
    requiredInstant(value, NAMES.billingPeriodStart).slice(0, 7) === context.billingPeriod
      ? true
      : ROW_PATH,
  );
  checks[START] = attempt((value) => optionalInstant(value, NAMES.usageStart));
  checks[END] = attempt((value) => optionalInstant(value, NAMES.usageEnd));
  checks[ACCOUNT] = codeCheck(accounts, (value) => requiredIdentifier(value, NAMES.usageAccountId));
  checks[CURRENCY] = codeCheck(currencies, (value) => requiredCurrency(value, NAMES.currency));
  checks[PRODUCT] = codeCheck(services, (value) => label(value, NAMES.productCode), null);
  return {
    format: 'cur',
    columns: CUR_COLUMNAR_COLUMNS,
    checks,
    decide: (outcomes, booking: Booking) => {
      const amount = outcomes[NET] === BLANK ? outcomes[UNBLENDED] : outcomes[NET];
      if (
        amount === ROW_PATH ||
        outcomes[PERIOD] === ROW_PATH ||
        outcomes[START] === ROW_PATH ||
        outcomes[END] === ROW_PATH ||
        outcomes[ACCOUNT] === ROW_PATH ||
        outcomes[CURRENCY] === ROW_PATH
      ) {
        return false;
      }
      booking.codes[0] = outcomes[ACCOUNT] as number;
      booking.codes[1] = outcomes[CURRENCY] as number;
      booking.codes[2] = outcomes[PRODUCT] as number;
      booking.amount = amount as ExactAmount;
      return true;
    },
  };
};
