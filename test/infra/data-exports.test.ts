import { Template } from 'aws-cdk-lib/assertions';
import { REQUIRED_COLUMNS } from '../../lambda/core/exports/column-format';
import { COLUMNS_READ } from '../../lambda/core/exports/columns-read';
import { ConfigError, contextFrom, resolveConfig } from '../../lib/config';
import { CUR2_COLUMNS, FOCUS_COLUMNS, NOT_SELECTED } from '../../lib/data-export-queries';
import { resourcesOfType, synth } from './helpers';

const SOURCES = [
  { tenant: 'acme', prefix: 'acme/' },
  { tenant: 'globex', prefix: 'exports/globex/' },
];
const EXPORTS = [
  { prefix: 'acme/', name: 'acme-cur2', table: 'cur2' },
  {
    prefix: 'exports/globex/',
    name: 'globex_focus',
    table: 'focus',
    format: 'csv',
    overwrite: true,
  },
];

const problemsOf = (context: Record<string, unknown>): string => {
  try {
    resolveConfig(contextFrom(context));
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('expected a ConfigError');
};

const exportsOf = (template: Template) =>
  Object.values(resourcesOfType(template, 'AWS::BCMDataExports::Export')).map(
    (resource) => (resource.Properties as { Export: Record<string, any> }).Export, // eslint-disable-line @typescript-eslint/no-explicit-any -- CloudFormation properties are untyped JSON
  );

describe('dataExports: the stage creates its AWS Data Exports', () => {
  test('without dataExports there is no data-exports stack', () => {
    const built = synth({ exportSources: SOURCES, region: 'eu-west-1' });
    expect(built.dataExports).toBeUndefined();
  });

  test('a stage outside us-east-1: the exports are in their own us-east-1 stack, delivering to the bucket’s region', () => {
    const built = synth({
      exportSources: SOURCES,
      dataExports: EXPORTS,
      region: 'eu-west-1',
      account: '111122223333',
    });
    const stack = built.dataExports!;
    expect(stack.region).toBe('us-east-1');
    expect(stack.stackName).toBe('billing-dedup-dev-data-exports');
    const [cur, focus] = exportsOf(Template.fromStack(stack));
    expect(cur.Name).toBe('acme-cur2');
    expect(cur.DestinationConfigurations.S3Destination).toMatchObject({
      S3Prefix: 'acme',
      S3Region: 'eu-west-1',
      S3OutputConfigurations: {
        Format: 'PARQUET',
        Compression: 'PARQUET',
        Overwrite: 'CREATE_NEW_REPORT',
        OutputType: 'CUSTOM',
      },
    });
    expect(cur.DataQuery.QueryStatement).toMatch(/ FROM COST_AND_USAGE_REPORT$/);
    expect(cur.DataQuery.TableConfigurations.COST_AND_USAGE_REPORT).toMatchObject({
      TIME_GRANULARITY: 'DAILY',
      INCLUDE_SPLIT_COST_ALLOCATION_DATA: 'FALSE',
    });
    expect(cur.RefreshCadence).toEqual({ Frequency: 'SYNCHRONOUS' });
    expect(focus.DestinationConfigurations.S3Destination).toMatchObject({
      S3Prefix: 'exports/globex',
      S3OutputConfigurations: {
        Format: 'TEXT_OR_CSV',
        Compression: 'GZIP',
        Overwrite: 'OVERWRITE_REPORT',
      },
    });
    expect(focus.DataQuery.QueryStatement).toMatch(/ FROM FOCUS_1_0_AWS$/);
    // The created bucket's name crosses regions through CDK's cross-region references (an SSM parameter
    // in us-east-1 written by the stateful stack, read by this one).
    expect(JSON.stringify(cur.DestinationConfigurations.S3Destination.S3Bucket)).toMatch(
      /ExportsReader.*RefExportBucket/,
    );
  });

  test('a stage in us-east-1 references the created bucket directly', () => {
    const built = synth({ exportSources: SOURCES, dataExports: EXPORTS, region: 'us-east-1' });
    const [cur] = exportsOf(Template.fromStack(built.dataExports!));
    expect(JSON.stringify(cur.DestinationConfigurations.S3Destination.S3Bucket)).toMatch(
      /Fn::ImportValue/,
    );
  });

  test('an existing bucket is named as configured', () => {
    const built = synth({
      exportSources: SOURCES,
      dataExports: EXPORTS,
      region: 'eu-west-1',
      exportBucketName: 'acme-billing-exports',
    });
    const [cur] = exportsOf(Template.fromStack(built.dataExports!));
    expect(cur.DestinationConfigurations.S3Destination.S3Bucket).toBe('acme-billing-exports');
  });

  test('the queries select every column the export readers require, and every other one they read but those left out on purpose', () => {
    const selected: Record<'cur' | 'focus', readonly string[]> = {
      cur: CUR2_COLUMNS,
      focus: FOCUS_COLUMNS,
    };
    for (const format of ['cur', 'focus'] as const) {
      expect(REQUIRED_COLUMNS[format].filter((c) => !selected[format].includes(c))).toEqual([]);
      const unselected = COLUMNS_READ[format].filter((c) => !selected[format].includes(c));
      expect(unselected.filter((c) => !(NOT_SELECTED as readonly string[]).includes(c))).toEqual(
        [],
      );
    }
  });

  test('refused at synth, naming the fix', () => {
    expect(problemsOf({ exportSources: SOURCES, dataExports: EXPORTS })).toMatch(
      /dataExports: set region/,
    );
    expect(
      problemsOf({
        exportSources: SOURCES,
        region: 'eu-west-1',
        dataExports: [{ ...EXPORTS[0], prefix: 'other/' }],
      }),
    ).toMatch(/dataExports\[0\]\.prefix: "other\/" is not one of exportSources\[\]\.prefix/);
    expect(
      problemsOf({
        exportSources: SOURCES,
        region: 'eu-west-1',
        dataExports: [EXPORTS[0], EXPORTS[0]],
      }),
    ).toMatch(/"acme-cur2" is used twice/);
    expect(
      problemsOf({
        exportSources: SOURCES,
        region: 'eu-west-1',
        dataExports: [{ ...EXPORTS[1], granularity: 'hourly' }],
      }),
    ).toMatch(/granularity applies to table "cur2" only/);
    expect(
      problemsOf({
        exportSources: SOURCES,
        region: 'eu-west-1',
        dataExports: [{ ...EXPORTS[0], name: 'acme.cur2' }],
      }),
    ).toMatch(/dataExports\[0\]\.name must be/);
    expect(
      problemsOf({
        exportSources: SOURCES,
        region: 'eu-west-1',
        dataExports: [{ ...EXPORTS[0], table: 'cur' }],
      }),
    ).toMatch(/table must be one of "cur2", "focus"/);
  });

  test('passes cdk-nag and the deploy limits', () => {
    expect(() =>
      synth(
        {
          exportSources: SOURCES,
          dataExports: EXPORTS,
          region: 'eu-west-1',
          account: '111122223333',
        },
        { nag: true },
      ),
    ).not.toThrow();
  });
});
