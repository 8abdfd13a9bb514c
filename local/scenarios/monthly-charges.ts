/**
 * The bulk of the cost stream: for every tenant, month and account, `perAccountMonth` logical charges
 * drawn from the input families (FOCUS AWS usage, credits and late corrections, canonical events,
 * restated line items; FOCUS GCP rows and snake_case events for GCP projects), then snake_case events
 * of a legacy billing account that carry no tenant.
 */
import { canonicalEvent } from './canonical-events';
import type { SampleDraft } from './draft';
import { focusRow } from './focus-rows';
import { restatedLineItem } from './line-items';
import { publishCharge } from './logical-charge';
import { snakeCaseCharge } from './snake-case';
import { LEGACY_ACCOUNT, MONTHS, TENANTS, type TenantSpec } from './tenants';

/** The AWS payer account of every FOCUS AWS row. */
const AWS_PAYER = '100000000001';

const awsAccountCharge = (
  draft: SampleDraft,
  spec: TenantSpec,
  account: string,
  month: string,
  index: number,
): void => {
  const roll = draft.rng.next();
  if (roll < 0.4)
    publishCharge(
      draft,
      focusRow(draft, spec, 'AWS', account, AWS_PAYER, month, index, 'usage'),
      'FOCUS AWS row',
    );
  else if (roll < 0.45)
    publishCharge(
      draft,
      focusRow(draft, spec, 'AWS', account, AWS_PAYER, month, index, 'credit'),
      'FOCUS credit',
    );
  else if (roll < 0.5 && month === MONTHS[1])
    publishCharge(
      draft,
      focusRow(draft, spec, 'AWS', account, AWS_PAYER, month, index, 'correction'),
      'FOCUS correction (late, earlier charge period)',
    );
  else if (roll < 0.75)
    publishCharge(draft, canonicalEvent(draft, spec, account, month, index), 'canonical event');
  else restatedLineItem(draft, spec, account, month, index);
};

const gcpProjectCharge = (
  draft: SampleDraft,
  spec: TenantSpec,
  project: string,
  month: string,
  index: number,
): void => {
  const { rng } = draft;
  if (rng.chance(0.5))
    publishCharge(
      draft,
      focusRow(
        draft,
        spec,
        'Google Cloud',
        project,
        spec.gcpBillingAccount,
        month,
        index,
        rng.chance(0.1) ? 'credit' : 'usage',
      ),
      'FOCUS GCP row',
    );
  else
    publishCharge(
      draft,
      snakeCaseCharge(
        draft,
        spec.tenant,
        spec.gcpBillingAccount,
        project,
        month,
        index,
        spec.currency,
      ),
      'snake_case event',
    );
};

export const monthlyCharges = (draft: SampleDraft, perAccountMonth: number): void => {
  for (const spec of TENANTS) {
    for (const month of MONTHS) {
      for (const account of spec.awsAccounts)
        for (let i = 0; i < perAccountMonth; i++) awsAccountCharge(draft, spec, account, month, i);
      for (const project of spec.gcpProjects)
        for (let i = 0; i < perAccountMonth; i++) gcpProjectCharge(draft, spec, project, month, i);
    }
  }
  for (const month of MONTHS)
    for (let i = 0; i < Math.ceil(perAccountMonth / 3); i++)
      publishCharge(
        draft,
        snakeCaseCharge(draft, undefined, LEGACY_ACCOUNT, undefined, month, i, 'USD'),
        'snake_case event, no tenant (default)',
      );
};
