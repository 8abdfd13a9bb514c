/**
 * Export diff notifications, published once per key through Powertools Idempotency on the dedup table
 * (the same claim-with-lease protocol as the alert notifier): a redelivered task that finds its
 * execution already switched gets the stored diff back and must not notify again. The completion write
 * is retried like the alert notifier's, so throttling after a publish does not notify twice.
 */
import type { Context } from 'aws-lambda';
import type { ExportDiffMessage } from '../core/exports/diff-message';
import type { DiffNotifierPort } from '../core/exports/task-batch';
import { SnsPublishOnce, type SnsPublishOnceOptions } from './sns-publish-once';

export type SnsDiffNotifierOptions = SnsPublishOnceOptions;

export class SnsDiffNotifier implements DiffNotifierPort {
  private readonly sender: SnsPublishOnce;

  constructor(options: SnsDiffNotifierOptions) {
    this.sender = new SnsPublishOnce(options);
  }

  useContext(context: Context): void {
    this.sender.useContext(context);
  }

  notifyOnce(key: string, message: ExportDiffMessage): Promise<'notified' | 'duplicate'> {
    return this.sender.publish(key, message);
  }
}
