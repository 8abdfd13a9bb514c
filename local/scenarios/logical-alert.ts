/** One logical alert published one or more times: exactly one notification is expected. */
import { ALERT_STREAM } from '../../contract/streams';
import { parseAlert } from '../../lambda/core/alert-processor';
import type { SampleDraft } from './draft';
import type { Rendered } from './sample';

/** The expected key is the alert key of the first rendering (lambda/core/keys.ts computes every key). */
export const alertOnce = (draft: SampleDraft, renders: Rendered[], note: string): void => {
  const [first] = renders;
  const { key } = parseAlert({
    messageId: 'ground-truth',
    body: first.message,
    messageAttributes: Object.fromEntries(
      Object.entries(first.attributes ?? {}).map(([name, value]) => [
        name,
        { stringValue: value, dataType: 'String' },
      ]),
    ),
  });
  draft.truth.notify(key);
  for (const render of renders) draft.place({ topic: ALERT_STREAM, ...render, note });
};
