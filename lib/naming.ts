/** Stage-aware physical names: `billing-dedup-<stage>-<suffix>`. One place decides them. */

export const PROJECT = 'billing-dedup';

export function resourceName(stage: string, suffix: string): string {
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

/** Powertools service name (also the `service` dimension of the EMF metrics). */
export function serviceName(stage: string, consumer: string): string {
  return resourceName(stage, consumer);
}
