import { Match, Template } from 'aws-cdk-lib/assertions';
import { STATEFUL_OUTPUTS } from '../../contract/outputs';
import { Synthesized, onlyResource, statementsOf, synth } from './helpers';

describe('stateful stack (dev, defaults)', () => {
  let s: Synthesized;
  let t: Template;
  beforeAll(() => {
    s = synth();
    t = s.statefulTemplate;
  });

  it('is named billing-dedup-<stage>-stateful', () => {
    expect(s.stateful.stackName).toBe('billing-dedup-dev-stateful');
    expect(s.stateful.terminationProtection).toBe(false);
  });

  it('holds exactly two tables, the export bucket and its log bucket, the archive bucket, four keys and their aliases, the period closer role', () => {
    t.resourceCountIs('AWS::DynamoDB::Table', 2);
    t.resourceCountIs('AWS::KMS::Key', 4);
    t.resourceCountIs('AWS::KMS::Alias', 4);
    t.resourceCountIs('AWS::S3::Bucket', 3);
    t.resourceCountIs('AWS::S3::BucketPolicy', 3);
    t.resourceCountIs('AWS::IAM::Role', 1);
    t.resourceCountIs('AWS::IAM::Policy', 1);
    expect(Object.keys(t.toJSON().Resources)).toHaveLength(18);
  });

  it('dedup table: pk (S), TTL on expiresAt, on-demand, PITR, CMK, retained, no deletion protection in dev', () => {
    const { resource } = onlyResource(t, 'AWS::DynamoDB::Table', {
      TableName: 'billing-dedup-dev-dedup',
    });
    expect(resource.DeletionPolicy).toBe('Retain');
    expect(resource.UpdateReplacePolicy).toBe('Retain');
    expect(resource.Properties).toEqual(
      expect.objectContaining({
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: false,
        SSESpecification: {
          SSEEnabled: true,
          SSEType: 'KMS',
          KMSMasterKeyId: { 'Fn::GetAtt': [expect.stringMatching(/^DataKey/), 'Arn'] },
        },
      }),
    );
  });

  it('ledger table: pk/sk (S), same protections, no TTL', () => {
    const { resource } = onlyResource(t, 'AWS::DynamoDB::Table', {
      TableName: 'billing-dedup-dev-ledger',
    });
    expect(resource.DeletionPolicy).toBe('Retain');
    expect(resource.Properties).toEqual(
      expect.objectContaining({
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: false,
      }),
    );
    expect(resource.Properties?.TimeToLiveSpecification).toBeUndefined();
  });

  it('keys rotate and are retained', () => {
    t.allResourcesProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    for (const key of Object.values(t.findResources('AWS::KMS::Key'))) {
      expect(key.DeletionPolicy).toBe('Retain');
    }
    t.hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/billing-dedup-dev-messaging' });
    t.hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/billing-dedup-dev-data' });
  });

  describe('messaging key policy lets the AWS publishers use the key', () => {
    let statements: ReturnType<typeof statementsOf>;
    beforeAll(() => {
      const { resource } = onlyResource(t, 'AWS::KMS::Key', {
        Description: Match.stringLikeRegexp('SNS topics'),
      });
      statements = statementsOf(resource, 'KeyPolicy');
    });
    const bySid = (sid: string) => {
      const st = statements.find((x) => x.Sid === sid);
      if (!st) throw new Error(`no statement ${sid}`);
      return st;
    };

    it.each([
      [
        'AllowSnsDeliveryToEncryptedQueues',
        'sns.amazonaws.com',
        ':sns:',
        ':billing-dedup-dev-cost-*',
      ],
      ['AllowBudgetsToPublish', 'budgets.amazonaws.com', ':budgets::', ':*'],
      [
        'AllowCloudWatchAlarmsToPublish',
        'cloudwatch.amazonaws.com',
        ':cloudwatch:',
        ':alarm:billing-dedup-dev-cost-*',
      ],
    ])('%s', (sid, service, arnPart, arnSuffix) => {
      const st = bySid(sid);
      expect(st.Effect).toBe('Allow');
      expect(st.Principal).toEqual({ Service: service });
      expect(st.Action).toEqual(['kms:GenerateDataKey*', 'kms:Decrypt']);
      expect(st.Condition?.StringEquals).toEqual({
        'aws:SourceAccount': { Ref: 'AWS::AccountId' },
      });
      const arn = JSON.stringify(st.Condition?.ArnLike?.['aws:SourceArn']);
      expect(arn).toContain(arnPart);
      expect(arn).toContain(arnSuffix);
    });

    it('AllowCostAnomalyDetectionToPublish (aws:SourceAccount only, as documented)', () => {
      const st = bySid('AllowCostAnomalyDetectionToPublish');
      expect(st.Principal).toEqual({ Service: 'costalerts.amazonaws.com' });
      expect(st.Condition).toEqual({
        StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
      });
    });

    it('has no producer statement without configured producers', () => {
      expect(
        statements.find((x) => x.Sid === 'AllowConfiguredProducersThroughSns'),
      ).toBeUndefined();
    });
  });

  it('outputs the table names under stable ids, without exports', () => {
    const outputs = t.toJSON().Outputs as Record<string, { Value: unknown; Export?: unknown }>;
    expect(outputs.DedupTableName.Value).toEqual({ Ref: expect.stringMatching(/^DedupTable/) });
    expect(outputs.LedgerTableName.Value).toEqual({ Ref: expect.stringMatching(/^LedgerTable/) });
    // CDK adds `ExportsOutput…` ids for the stateless stack's cross-stack references.
    const ours = Object.keys(outputs).filter((id) => !id.startsWith('ExportsOutput'));
    expect(ours.sort()).toEqual(Object.values(STATEFUL_OUTPUTS).sort());
    for (const id of ['DedupTableName', 'LedgerTableName', 'DataKeyArn', 'MessagingKeyArn']) {
      expect(outputs[id]).toBeDefined();
      expect(outputs[id].Export).toBeUndefined();
    }
  });

  it('tags every taggable resource with project and stage', () => {
    for (const type of ['AWS::DynamoDB::Table', 'AWS::KMS::Key']) {
      t.allResourcesProperties(type, {
        Tags: Match.arrayWith([
          { Key: 'project', Value: 'billing-dedup' },
          { Key: 'stage', Value: 'dev' },
        ]),
      });
    }
  });
});

describe('stateful stack (prod, with producers)', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synth({
      stage: 'prod',
      costEventsPublishers: '111122223333',
      budgetAlertsPublishers: 'arn:aws:iam::444455556666:role/forwarder',
    });
  });

  it('protects the tables and the stack outside dev', () => {
    s.statefulTemplate.allResourcesProperties('AWS::DynamoDB::Table', {
      DeletionProtectionEnabled: true,
    });
    s.statefulTemplate.hasResourceProperties('AWS::DynamoDB::Table', {
      TableName: 'billing-dedup-prod-dedup',
    });
    expect(s.stateful.stackName).toBe('billing-dedup-prod-stateful');
    expect(s.stateful.terminationProtection).toBe(true);
  });

  it('lets configured producers use the messaging key, only through SNS', () => {
    const { resource } = onlyResource(s.statefulTemplate, 'AWS::KMS::Key', {
      Description: Match.stringLikeRegexp('SNS topics'),
    });
    const st = statementsOf(resource, 'KeyPolicy').find(
      (x) => x.Sid === 'AllowConfiguredProducersThroughSns',
    );
    expect(st).toBeDefined();
    expect(st!.Action).toEqual(['kms:GenerateDataKey', 'kms:Decrypt']);
    // By account (the topic policies name the principals): the key policy does not grow per role.
    expect(st!.Principal).toEqual({ AWS: '*' });
    expect(st!.Condition?.StringEquals).toEqual({
      'kms:ViaService': { 'Fn::Join': ['', ['sns.', { Ref: 'AWS::Region' }, '.amazonaws.com']] },
      'kms:CallerAccount': expect.arrayContaining(['111122223333', '444455556666']),
    });
  });
});
