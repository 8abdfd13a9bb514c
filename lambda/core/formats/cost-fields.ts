/** How every cost format reads its fields: the same checks, only the field (or column) names differ. */
import {
  optionalDecimal,
  optionalIdentifier,
  optionalInstant,
  optionalString,
  optionalTags,
  requiredAmount,
  requiredCurrency,
  requiredInstant,
} from './fields';

/** The raw value of a field of the message, by its name in this format. */
export type FieldLookup = (name: string) => unknown;

export interface FieldReaders {
  text: (name: string) => string | undefined;
  id: (name: string) => string | undefined;
}

export const fieldReaders = (lookup: FieldLookup): FieldReaders => ({
  text: (name) => optionalString(lookup(name), name),
  id: (name) => optionalIdentifier(lookup(name), name),
});

/** This format's names of the fields that say how much was charged, for what usage, with which tags. */
export interface AmountFieldNames {
  amount: string;
  currency: string;
  usageQuantity: string;
  usageUnit: string;
  tags: string;
}

export const amountFields = (lookup: FieldLookup, names: AmountFieldNames) => ({
  amount: requiredAmount(lookup(names.amount), names.amount),
  currency: requiredCurrency(lookup(names.currency), names.currency),
  usageQuantity: optionalDecimal(lookup(names.usageQuantity), names.usageQuantity),
  usageUnit: optionalString(lookup(names.usageUnit), names.usageUnit),
  tags: optionalTags(lookup(names.tags), names.tags),
});

/** This format's names of the period fields; a format without a billing period leaves it out. */
export interface PeriodFieldNames {
  billingPeriodStart?: string;
  chargePeriodStart: string;
  chargePeriodEnd: string;
}

export const periodFields = (lookup: FieldLookup, names: PeriodFieldNames) => ({
  billingPeriodStart:
    names.billingPeriodStart === undefined
      ? undefined
      : optionalInstant(lookup(names.billingPeriodStart), names.billingPeriodStart),
  chargePeriodStart: requiredInstant(lookup(names.chargePeriodStart), names.chargePeriodStart),
  chargePeriodEnd: optionalInstant(lookup(names.chargePeriodEnd), names.chargePeriodEnd),
});
