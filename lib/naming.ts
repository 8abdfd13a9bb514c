/** Stage-aware physical names: `billing-dedup-<stage>-<suffix>`. One place decides them. */

export const PROJECT = 'billing-dedup';

/**
 * The first word of every suffix the app puts after the stage. A stage name may not contain any of
 * them as a hyphen-separated word, so the stage of a name is everything before its first reserved
 * word: a policy pattern such as `billing-dedup-prod-cost-events*` can never match a resource of stage
 * `prod-eu` (or of any other stage), even though both stages share the prefix `billing-dedup-prod-`.
 */
export const RESERVED_STAGE_WORDS = [
  'archive',
  'archiver',
  'budget',
  'cost',
  'data',
  'dedup',
  'export',
  'exports',
  'ledger',
  'messaging',
  'notifications',
  'operations',
  'ops',
  'period',
  'push',
  'reconciliation',
  'stateful',
  'stateless',
] as const;

const isReservedWord = (word: string): boolean =>
  (RESERVED_STAGE_WORDS as readonly string[]).includes(word);

/** The reserved words a stage name contains (empty: the stage is usable). */
export function reservedWordsIn(stage: string): string[] {
  return stage.split('-').filter(isReservedWord);
}

export function resourceName(stage: string, suffix: string): string {
  const first = suffix.split('-')[0];
  if (!isReservedWord(first))
    throw new Error(
      `resource name suffix "${suffix}" must start with one of RESERVED_STAGE_WORDS (lib/naming.ts): ` +
        'add its first word there, so that no stage name can contain it',
    );
  return `${PROJECT}-${stage}-${suffix}`;
}

/** SNS/SQS names of FIFO resources must end in `.fifo`. */
export function messagingName(stage: string, suffix: string, fifo: boolean): string {
  return `${resourceName(stage, suffix)}${fifo ? '.fifo' : ''}`;
}

export function statefulStackName(stage: string): string {
  return resourceName(stage, 'stateful');
}

export function statelessStackName(stage: string): string {
  return resourceName(stage, 'stateless');
}

export function dataExportsStackName(stage: string): string {
  return resourceName(stage, 'data-exports');
}

/** Powertools service name (also the `service` dimension of the EMF metrics). */
export function serviceName(stage: string, consumer: string): string {
  return resourceName(stage, consumer);
}
