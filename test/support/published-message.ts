/**
 * The message a publisher sent, from an SQS record body: tenant and trusted cost topics deliver SNS
 * envelopes (raw delivery off), other subscriptions deliver the message itself.
 */
export const publishedMessageOf = (body: string): string => {
  try {
    const parsed = JSON.parse(body) as { Type?: unknown; Message?: unknown } | null;
    return parsed?.Type === 'Notification' && typeof parsed.Message === 'string'
      ? parsed.Message
      : body;
  } catch {
    return body;
  }
};
