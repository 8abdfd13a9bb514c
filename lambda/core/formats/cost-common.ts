/** Vocabulary and checks shared by the cost-event formats. */
import { fail } from '../errors';
import type { CostEvent } from '../events';
import { compact, isObject } from './fields';

/** FOCUS ChargeClass values (lower-case); FOCUS 1.x defines only `Correction` (else null). */
export const CHARGE_CLASSES = ['correction'] as const;

/** The original design's cost_type values (GCP billing export vocabulary). */
export const COST_TYPES = ['regular', 'tax', 'adjustment', 'rounding_error'] as const;
export type CostType = (typeof COST_TYPES)[number];

/** At least one of `markers` is an own key of the message: the message has this format's shape. */
export const hasAnyKey = (message: unknown, markers: readonly string[]): boolean =>
  isObject(message) && markers.some((key) => Object.prototype.hasOwnProperty.call(message, key));

/**
 * Final shape of a cost event: absent optional fields omitted, and a charge period that does not end
 * before it starts (`chargePeriodEnd` may equal `chargePeriodStart`).
 */
export const finishCostEvent = (event: CostEvent, endField: string): CostEvent => {
  if (event.chargePeriodEnd !== undefined && event.chargePeriodEnd < event.chargePeriodStart) {
    fail('invalid-field', endField, 'charge period ends before it starts');
  }
  return compact(event);
};
