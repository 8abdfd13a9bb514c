/**
 * The planner's duplicate rule on DynamoDB Local: a redelivery of an executionId is a duplicate only
 * when its fingerprint (manifest content, data file sizes and pinned versions) is the one recorded.
 */
import { ExportPlans } from '../../lambda/adapters/export-plans';
import { manifestFor, type DataFile } from '../../lambda/core/exports/manifest';
import type { FileFacts } from '../../lambda/core/exports/plan';
import { planDelivery, type PlanDeliveryOptions } from '../../lambda/core/exports/plan-delivery';
import type { ExportTaskMessage } from '../../lambda/core/exports/task-message';
import { CSV_HEADER } from '../support/export-pipeline';
import { useExportLedger } from '../support/file-fixtures';

const ledger = useExportLedger();

const manifestOf = (tenant: string, names: string[]) =>
  manifestFor({
    bucket: 'exports',
    prefix: tenant,
    exportName: 'focus',
    billingPeriod: '2026-11',
    executionId: 'run-1',
    columns: CSV_HEADER.split(','),
    dataFileNames: names,
  });

const planner = (tenant: string) => {
  const texts = new Map<string, string>();
  const facts = new Map<string, FileFacts>();
  const sent: ExportTaskMessage[] = [];
  const options: PlanDeliveryOptions = {
    sources: [{ tenant, bucket: 'exports', prefix: tenant }],
    targetRowsPerTask: 100,
    objects: {
      readText: (_bucket, key) => Promise.resolve(texts.get(key) ?? ''),
      factsOf: (file: DataFile) => Promise.resolve(facts.get(file.key)),
    },
    plans: new ExportPlans({
      client: ledger.dynamo,
      ledgerTable: ledger.tables.ledgerTable,
      store: ledger.store,
    }),
    queue: { send: (messages) => Promise.resolve(void sent.push(...messages)) },
  };
  const deliver = (names: string[]) => {
    const built = manifestOf(tenant, names);
    texts.set(built.manifestKey, built.json);
    built.dataFileKeys.forEach((key, index) =>
      facts.set(key, facts.get(key) ?? { key, size: 100 + index, pin: { eTag: `"${index}"` } }),
    );
    return planDelivery(
      {
        bucket: 'exports',
        key: built.manifestKey,
        eventTime: '2026-11-02T06:00:00.000Z',
        sequencer: '0A',
      },
      options,
    );
  };
  return { deliver, facts, sent };
};

describe('a re-used executionId', () => {
  it('the same manifest again is a duplicate; with an added data file it is refused and the plan keeps its files', async () => {
    const { deliver, sent } = planner('reused');
    expect(await deliver(['part-0.csv'])).toMatchObject({ outcome: 'planned', tasks: 1 });
    expect(await deliver(['part-0.csv'])).toMatchObject({ outcome: 'duplicate' });

    await expect(deliver(['part-0.csv', 'part-1.csv'])).rejects.toMatchObject({
      code: 'execution-reused',
      field: 'executionId',
    });

    expect(sent).toHaveLength(1);
    const [execution] = await ledger.store.listExecutions(
      'reused',
      'exports/reused/focus',
      '2026-11',
    );
    expect(execution).toMatchObject({ executionId: 'run-1', tasksTotal: 1 });
    expect(execution.files.map((file) => file.key)).toEqual([sent[0].task.objectKey]);
  });

  it('a data file overwritten before the redelivery (another ETag) is refused too', async () => {
    const { deliver, facts } = planner('rewritten');
    const planned = await deliver(['part-0.csv']);
    const [key] = [...facts.keys()];
    facts.set(key, { key, size: 100, pin: { eTag: '"rewritten"' } });

    await expect(deliver(['part-0.csv'])).rejects.toMatchObject({ code: 'execution-reused' });
    expect(planned.outcome).toBe('planned');
  });
});
