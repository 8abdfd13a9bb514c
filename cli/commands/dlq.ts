import { COST_STREAM } from '../../contract/streams';
import { CliError, EXIT, UsageError } from '../errors';
import { json, plural, preview, table } from '../format';
import { peekDlq, queueDepth, reasonBreakdown, type PeekedMessage } from '../operations/peek';
import { redriveDestination, redriveDlq } from '../operations/redrive';
import { createProgress } from '../progress';
import { STREAMS, type Stream } from '../resources';
import type { Session } from '../session';

export interface DlqFlags {
  stream?: Stream;
  json?: boolean;
}

export interface PeekFlags extends DlqFlags {
  max: number;
  holdSeconds: number;
}

export interface RedriveFlags extends DlqFlags {
  dryRun?: boolean;
  sample: number;
  maxPerSecond?: number;
  progress?: boolean;
}

const streamOf = (flags: DlqFlags, session: Session): Stream => {
  if (flags.stream) return flags.stream;
  if (session.resources.flags.dlqUrl) return COST_STREAM; // only used for naming; the URL is explicit
  throw new UsageError(`Missing --stream ${STREAMS.join('|')} (or pass --dlq-url)`);
};

const reasonText = (message: PeekedMessage): string => {
  const { code, field, reason } = message.rejection;
  if (!code) return '(no rejection attributes: moved by SQS after maxReceiveCount)';
  return `${code}${field && field !== '-' ? ` ${field}` : ''}: ${reason ?? ''}`;
};

const renderMessage = (message: PeekedMessage, index: number): string => {
  const head = [
    `[${index + 1}] ${message.messageId}`,
    `receives ${message.receiveCount}`,
    ...(message.sentAt ? [`sent ${message.sentAt}`] : []),
    ...(message.groupId ? [`group ${message.groupId}`] : []),
  ].join('  ');
  const lines = [head, `    reason  ${reasonText(message)}`];
  if (message.rejection.at) lines.push(`    at      ${message.rejection.at}`);
  lines.push(`    body    ${preview(message.body, 200)}`);
  return lines.join('\n');
};

/** `billing-dedup dlq peek`. */
export const peekCommand = async (flags: PeekFlags, session: Session): Promise<number> => {
  const stream = streamOf(flags, session);
  const dlqUrl = await session.resources.dlqUrl(stream);
  const result = await peekDlq({
    sqs: session.clients.sqs,
    dlqUrl,
    max: flags.max,
    holdSeconds: flags.holdSeconds,
    waitSeconds: session.deps.receiveWaitSeconds ?? 1,
  });
  if (flags.json) {
    session.io.stdout.write(json({ stream, ...result }));
    return EXIT.ok;
  }
  const { depth, messages } = result;
  const out: string[] = [
    `DLQ ${dlqUrl}${result.fifo ? ' (FIFO)' : ''}: ~${depth.visible} visible, ~${depth.inFlight} in flight; showing ${messages.length}`,
  ];
  if (messages.length === 0) out.push('The dead-letter queue is empty.');
  for (const [index, message] of messages.entries()) out.push(renderMessage(message, index));
  if (messages.length > 0) {
    out.push(
      `Nothing was deleted. This peek received each message once (its receive count went up by one)` +
        (result.fifo ? ' and held its message group for up to the hold time.' : '.'),
    );
  }
  session.io.stdout.write(`${out.join('\n')}\n`);
  return EXIT.ok;
};

/** `billing-dedup dlq redrive` (and `--dry-run`). */
export const redriveCommand = async (flags: RedriveFlags, session: Session): Promise<number> => {
  const stream = streamOf(flags, session);
  const { resources, clients, io } = session;
  const dlqUrl = await resources.dlqUrl(stream);
  const sourceQueueUrl = await resources.optionalQueueUrl(stream);
  if (flags.maxPerSecond !== undefined && (flags.maxPerSecond < 1 || flags.maxPerSecond > 500))
    throw new UsageError('--max-per-second must be between 1 and 500 (SQS limit)');

  if (flags.dryRun) {
    const depth = await queueDepth(clients.sqs, dlqUrl);
    const destination = await redriveDestination(clients.sqs, dlqUrl, sourceQueueUrl);
    const waiting = depth.visible + depth.inFlight;
    const sample =
      flags.sample > 0 && waiting > 0
        ? await peekDlq({
            sqs: clients.sqs,
            dlqUrl,
            max: Math.min(flags.sample, waiting),
            waitSeconds: session.deps.receiveWaitSeconds ?? 1,
          })
        : undefined;
    const reasons = reasonBreakdown(sample?.messages ?? []);
    if (flags.json) {
      io.stdout.write(
        json({
          dryRun: true,
          stream,
          dlqUrl,
          destinationArn: destination ?? null,
          wouldMove: waiting,
          sampled: sample?.messages.length ?? 0,
          reasons,
        }),
      );
      return EXIT.ok;
    }
    const out = [
      `Dry run: ~${plural(waiting, 'message')} would move from ${dlqUrl}`,
      `  to ${destination ?? 'the queues they were dead-lettered from (SQS decides per message)'}` +
        (flags.maxPerSecond ? ` at ≤${flags.maxPerSecond} msg/s` : ''),
    ];
    if (reasons.length > 0) {
      out.push(`Reasons (sample of ${sample?.messages.length ?? 0}):`);
      out.push(
        table(
          ['count', 'reason', 'example'],
          reasons.map((r) => [String(r.count), r.reason, preview(r.example ?? '', 70)]),
          ['right'],
        ),
      );
    }
    out.push(
      'Nothing was moved.' +
        (sample?.messages.length
          ? ' Sampling received each sampled message once (receive count +1).'
          : ''),
    );
    io.stdout.write(`${out.join('\n')}\n`);
    return EXIT.ok;
  }

  const progress = createProgress(io.stderr, {
    label: 'redrive',
    unit: 'msg',
    total: 0,
    now: session.now,
    silent: flags.json || flags.progress === false,
  });
  let result;
  try {
    result = await redriveDlq({
      sqs: clients.sqs,
      dlqUrl,
      sourceQueueUrl,
      maxPerSecond: flags.maxPerSecond,
      pollMs: session.deps.pollMs,
      sleep: session.sleep,
      onProgress: ({ moved, toMove, status }) =>
        progress.update(moved, toMove, status === 'RUNNING' ? '' : status.toLowerCase()),
    });
  } finally {
    progress.stop();
  }
  if (flags.json) io.stdout.write(json({ stream, dlqUrl, ...result }));
  else if (result.status === 'NOTHING_TO_MOVE')
    io.stdout.write(`The dead-letter queue ${dlqUrl} is empty: nothing to redrive.\n`);
  else
    io.stdout.write(
      `Moved ${result.moved} of ${plural(result.moved + result.failed, 'message')} from ${dlqUrl} to ` +
        `${result.destinationArn ?? 'their source queues'} (task ${result.status.toLowerCase()}). ` +
        'The consumer processes them again; what was already applied is a duplicate, not a second charge.\n',
    );
  if (result.status === 'FAILED' || result.status === 'CANCELLED') {
    throw new CliError(
      `Move task ${result.status.toLowerCase()}${result.failureReason ? ` (${result.failureReason})` : ''}: ` +
        `${result.failed} messages are still in the DLQ; ` +
        (result.failureReason === 'CouldNotDetermineMessageSource'
          ? 'pass --queue-url (or --stack) so the destination is explicit'
          : 'check the task with `aws sqs list-message-move-tasks` and run the redrive again'),
    );
  }
  return EXIT.ok;
};
