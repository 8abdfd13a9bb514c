/**
 * A step of a scheduled acquisition continued through its provider's step queue
 * (docs/azure-acquisition.md, docs/gcp-acquisition.md): one source of one tenant, to pass over again
 * from its cursor. The function sends it to itself when a pass stopped short (no time left, or a
 * provider's throttle too long to sleep) and takes it back as an SQS event. Versioned: `v` is 1; a
 * reader refuses a version it does not know, so a newer message waits in the DLQ for a newer reader.
 * The function finds its queue in `ENV.acquisitionStepQueueUrl`, the DLQ in `ENV.dlqUrl`.
 */

export const ACQUISITION_STEP_VERSION = 1;

/**
 * Why the step exists: `time` — the invocation ran short and the source has work left;
 * `throttle` — the provider asked to wait until `notBefore`.
 */
export const ACQUISITION_STEP_REASONS = ['time', 'throttle'] as const;
export type AcquisitionStepReason = (typeof ACQUISITION_STEP_REASONS)[number];

export interface AcquisitionStep {
  v: typeof ACQUISITION_STEP_VERSION;
  tenant: string;
  /** The source's id (`azureSourceId`, `gcpSourceId`), as in its cursor's key. */
  sourceId: string;
  reason: AcquisitionStepReason;
  /** ISO-8601 instant before which the source must not be passed over (a throttle's end). */
  notBefore?: string;
}

export const acquisitionStepBody = (step: AcquisitionStep): string => JSON.stringify(step);

const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';

/** The step a message body holds; an Error naming what is wrong otherwise. */
export const parseAcquisitionStep = (body: string): AcquisitionStep => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new Error('acquisition step: the body is not JSON');
  }
  const value = (parsed ?? {}) as Record<string, unknown>;
  if (value.v !== ACQUISITION_STEP_VERSION)
    throw new Error(
      `acquisition step: version ${JSON.stringify(value.v)} is not ${ACQUISITION_STEP_VERSION}`,
    );
  if (!isText(value.tenant) || !isText(value.sourceId))
    throw new Error('acquisition step: tenant and sourceId must be non-empty strings');
  if (!ACQUISITION_STEP_REASONS.includes(value.reason as AcquisitionStepReason))
    throw new Error(
      `acquisition step: reason ${JSON.stringify(value.reason)} is not one of ${ACQUISITION_STEP_REASONS.join(', ')}`,
    );
  if (
    value.notBefore !== undefined &&
    (!isText(value.notBefore) || Number.isNaN(Date.parse(value.notBefore)))
  )
    throw new Error('acquisition step: notBefore must be an ISO-8601 instant');
  return {
    v: ACQUISITION_STEP_VERSION,
    tenant: value.tenant,
    sourceId: value.sourceId,
    reason: value.reason as AcquisitionStepReason,
    ...(value.notBefore === undefined ? {} : { notBefore: value.notBefore }),
  };
};
