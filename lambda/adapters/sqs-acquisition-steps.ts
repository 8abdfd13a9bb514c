/** The provider's step queue: each continuation step one SendMessage, delayed by its `delaySeconds`. */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { acquisitionStepBody } from '../../contract/acquisition-step';
import {
  ENV,
  readOptional,
  readPositiveInteger,
  type EnvironmentSource,
} from '../../contract/environment';
import type { StepToSend } from '../core/acquisition/acquisition-steps';
import type { StepQueuePort } from '../core/acquisition/step-runs';

export class SqsAcquisitionSteps implements StepQueuePort {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(steps: readonly StepToSend[]): Promise<void> {
    for (const { step, delaySeconds } of steps)
      await this.client.send(
        new SendMessageCommand({
          QueueUrl: this.queueUrl,
          MessageBody: acquisitionStepBody(step),
          DelaySeconds: delaySeconds,
        }),
      );
  }
}

/** The step queue's redrive maxReceiveCount when the environment does not say (config's default). */
export const DEFAULT_ACQUISITION_STEP_MAX_RECEIVE_COUNT = 5;

export interface AcquisitionStepSettings {
  /** Absent: nothing is continued through SQS (the next schedule resumes). */
  queueUrl?: string;
  dlqUrl?: string;
  maxReceiveCount: number;
}

/** What a scheduled acquisition function reads of its step queue. */
export const acquisitionStepSettings = (env: EnvironmentSource): AcquisitionStepSettings => {
  const queueUrl = readOptional(env, ENV.acquisitionStepQueueUrl);
  const dlqUrl = readOptional(env, ENV.dlqUrl);
  return {
    ...(queueUrl ? { queueUrl } : {}),
    ...(dlqUrl ? { dlqUrl } : {}),
    maxReceiveCount: readPositiveInteger(
      env,
      ENV.acquisitionStepMaxReceiveCount,
      DEFAULT_ACQUISITION_STEP_MAX_RECEIVE_COUNT,
    ),
  };
};
