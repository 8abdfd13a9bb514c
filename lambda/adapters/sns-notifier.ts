import type { Context } from 'aws-lambda';
import { alertMessage } from '../core/alert-message';
import type { AlertEvent } from '../core/events';
import type { NotifierPort } from '../core/ports';
import { SnsPublishOnce, type SnsPublishOnceOptions } from './sns-publish-once';

export type SnsNotifierOptions = SnsPublishOnceOptions;

/**
 * One SNS publish per alert key (see SnsPublishOnce). Marking the claim COMPLETED is retried, longer
 * than the SDK default, so that throttling after the publish does not lead to a second alert.
 */
export class SnsNotifier implements NotifierPort {
  private readonly sender: SnsPublishOnce;

  constructor(options: SnsNotifierOptions) {
    this.sender = new SnsPublishOnce(options);
  }

  useContext(context: Context): void {
    this.sender.useContext(context);
  }

  notifyOnce(key: string, alert: AlertEvent): Promise<'notified' | 'duplicate'> {
    return this.sender.publish(key, alertMessage(alert, key));
  }
}
