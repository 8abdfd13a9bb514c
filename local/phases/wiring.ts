/**
 * Phase 2, the wiring: every enabled event source mapping of the templates becomes a poller that runs
 * its function's real handler, fed by the topic whose subscription targets its queue.
 */
import { readTenantBindings } from '../../contract/environment';
import type { StreamName } from '../../contract/streams';
import { tenantTopicArn, type TenantBindings } from '../../contract/tenant-bindings';
import { LOCAL_REGION } from '../emulators/local-aws';
import type { FaultPlan } from '../runtime/faults';
import { handlerFactoryFor, type HandlerClients } from '../runtime/functions';
import type { LocalSns } from '../emulators/sns-in-process';
import { QueuePoller, type RecordEvent } from '../runtime/poller';
import type { FunctionPlan, LocalPlan, MappingPlan, QueuePlan } from '../runtime/template';
import type { Cleanups } from './cleanups';

/** An event source mapping with everything it connects, as the templates declare them. */
export interface StreamRoute {
  mapping: MappingPlan;
  fn: FunctionPlan;
  queue: QueuePlan;
  dlq?: QueuePlan;
  /** The shared topic whose SQS subscription delivers to the queue; none for a queue only functions send to. */
  topicArn?: string;
  /** Topics bound to one tenant each (TENANT_BINDINGS of the function) that deliver to the queue too. */
  tenantTopics: TenantTopicRoute[];
}

export interface TenantTopicRoute {
  tenant: string;
  topicArn: string;
}

export interface StreamWiring {
  stream: StreamName;
  topicArn?: string;
  tenantTopics: TenantTopicRoute[];
  fifoTopic: boolean;
  queue: QueuePlan;
  dlq?: QueuePlan;
  poller: QueuePoller;
}

export const resolveRoute = (
  plan: Pick<LocalPlan, 'functions' | 'queues' | 'subscriptions'>,
  mapping: MappingPlan,
): StreamRoute => {
  const fn = plan.functions.find((candidate) => candidate.logicalId === mapping.functionLogicalId);
  const queue = plan.queues.find((candidate) => candidate.arn === mapping.queueArn);
  if (!fn || !queue)
    throw new Error(
      `event source mapping ${mapping.logicalId}: function or queue not in the templates`,
    );
  const bindings = readTenantBindings(fn.environment);
  const tenantOf = new Map(
    Object.keys(bindings?.tenants ?? {}).map((tenant) => [
      tenantTopicArn(bindings as TenantBindings, tenant),
      tenant,
    ]),
  );
  const subscriptions = plan.subscriptions.filter(
    (candidate) => candidate.endpoint === queue.arn && candidate.protocol === 'sqs',
  );
  const subscription = subscriptions.find((candidate) => !tenantOf.has(candidate.topicArn));
  return {
    mapping,
    fn,
    queue,
    dlq: plan.queues.find((candidate) => candidate.arn === queue.redrive?.deadLetterTargetArn),
    ...(subscription ? { topicArn: subscription.topicArn } : {}),
    tenantTopics: subscriptions.flatMap(({ topicArn }) => {
      const tenant = tenantOf.get(topicArn);
      return tenant === undefined ? [] : [{ tenant, topicArn }];
    }),
  };
};

export const wireStreams = (options: {
  plan: LocalPlan;
  localSns: LocalSns;
  pollerSqs: QueuePoller['options']['sqs'];
  clients: HandlerClients;
  faults: FaultPlan;
  cleanups: Cleanups;
  onRecord?: (event: RecordEvent) => void;
}): StreamWiring[] => {
  const { plan, clients } = options;
  const wirings = plan.mappings
    .filter((mapping) => mapping.enabled)
    .map((mapping): StreamWiring => {
      const route = resolveRoute(plan, mapping);
      const { fn, queue } = route;
      const factory = handlerFactoryFor(fn.functionName, fn.environment);
      const env = {
        ...fn.environment,
        AWS_REGION: LOCAL_REGION,
        AWS_LAMBDA_FUNCTION_NAME: fn.functionName,
      };
      const poller = new QueuePoller({
        stream: factory.stream,
        queue,
        mapping,
        fn,
        sqs: options.pollerSqs,
        faults: options.faults,
        createHandler: () => factory.create(env, clients),
        onRecord: options.onRecord,
      });
      return {
        stream: factory.stream as StreamName,
        ...(route.topicArn ? { topicArn: route.topicArn } : {}),
        tenantTopics: route.tenantTopics,
        fifoTopic: [route.topicArn, ...route.tenantTopics.map((t) => t.topicArn)].some(
          (arn) => arn !== undefined && options.localSns.topic(arn).fifo,
        ),
        queue,
        dlq: route.dlq,
        poller,
      };
    });
  for (const wiring of wirings) {
    wiring.poller.start();
    options.cleanups.add(() => wiring.poller.stop());
  }
  return wirings;
};

export const describeWiring = (wiring: StreamWiring): string => {
  const { queue, poller } = wiring;
  return `${wiring.stream}: ${queue.fifo ? 'FIFO' : 'standard'} queue ${queue.queueName}, visibility ${queue.visibilityTimeoutSeconds} s (template; redelivery compressed locally), maxReceiveCount ${queue.redrive?.maxReceiveCount ?? '-'}, batch ${poller.options.mapping.batchSize}, function timeout ${poller.options.fn.timeoutSeconds} s`;
};
