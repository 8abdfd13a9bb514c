import { Match } from 'aws-cdk-lib/assertions';
import { ConfigError } from '../../lib/config';
import { resourcesOfType, synth } from './helpers';

const PUSH = {
  pubsub: {
    audience: 'https://push.example.com/pubsub',
    serviceAccounts: { 'billing-push@acme.iam.gserviceaccount.com': 'acme' },
  },
  azureTenants: ['acme'],
  ingest: true,
  ratePerSecond: 20,
  burst: 40,
  refusedAuthAlarmPerFiveMinutes: 7,
};

describe('push endpoint (config pushEndpoint)', () => {
  it('is off unless configured: no HTTP API, no push function', () => {
    const { statelessTemplate: t } = synth();
    t.resourceCountIs('AWS::ApiGatewayV2::Api', 0);
    expect(
      Object.values(resourcesOfType(t, 'AWS::Lambda::Function')).filter((fn) =>
        String(fn.Properties?.FunctionName).endsWith('-push-endpoint'),
      ),
    ).toHaveLength(0);
  });

  it('configured: an HTTP API with the three POST routes, stage throttling, access logs and the function', () => {
    const { statelessTemplate: t } = synth({ pushEndpoint: PUSH });
    t.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      Name: 'billing-dedup-dev-push',
      ProtocolType: 'HTTP',
    });
    for (const route of ['POST /pubsub', 'POST /azure/{tenant}', 'POST /v1/events'])
      t.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: route });
    t.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 },
      AccessLogSettings: Match.objectLike({ DestinationArn: Match.anyValue() }),
    });
    t.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'billing-dedup-dev-push-endpoint',
      Environment: {
        Variables: Match.objectLike({
          PUSH_ENDPOINT: JSON.stringify(PUSH),
          ALERTS_TOPIC_ARN: Match.anyValue(),
          COST_TOPIC_ARN: Match.anyValue(),
          COST_TOPIC_FIFO: 'true',
          DEDUP_TTL_SECONDS: String(35 * 86400),
        }),
      },
    });
    t.hasOutput('PushEndpointUrl', Match.anyValue());
  });

  it('only configured routes exist', () => {
    const { statelessTemplate: t } = synth({ pushEndpoint: { azureTenants: ['acme'] } });
    t.resourceCountIs('AWS::ApiGatewayV2::Route', 1);
    t.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: 'POST /azure/{tenant}' });
  });

  it('its role reads only credential hashes and idempotency keys, and publishes to the two topics', () => {
    const { statelessTemplate: t } = synth({ pushEndpoint: PUSH });
    t.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Sid: 'ReadCredentialHashes',
            Action: 'dynamodb:GetItem',
            Condition: {
              'ForAllValues:StringLike': {
                'dynamodb:LeadingKeys': ['API_KEY#*', 'WEBHOOK_SECRET#*'],
              },
            },
          }),
          Match.objectLike({
            Sid: 'IdempotencyKeys',
            Condition: {
              'ForAllValues:StringLike': {
                'dynamodb:LeadingKeys': ['ingest-key#*', 'ingest-rate#*'],
              },
            },
          }),
          Match.objectLike({ Sid: 'PublishToTopics', Action: 'sns:Publish' }),
        ]),
      },
    });
  });

  it('refused authentications above the configured rate alarm the ops topic', () => {
    const { statelessTemplate: t } = synth({ pushEndpoint: PUSH });
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'billing-dedup-dev-push-auth-refused',
      MetricName: 'pushAuthRefused',
      Namespace: 'BillingDedup',
      Threshold: 7,
      Period: 300,
      AlarmActions: [Match.anyValue()],
    });
  });

  it.each([
    [{ ingest: 'yes' }, /pushEndpoint\.ingest must be true or false/],
    [{}, /enables nothing/],
    [{ pubsub: { audience: 'x', serviceAccounts: { 'sa@x': 'Not A Slug' } } }, /tenant/],
    [{ azureTenants: ['acme'], ratePerSecond: 0 }, /ratePerSecond must be a whole number/],
  ])('a bad pushEndpoint is a synth error naming the field: %j', (pushEndpoint, message) => {
    expect(() => synth({ pushEndpoint })).toThrow(ConfigError);
    expect(() => synth({ pushEndpoint })).toThrow(message);
  });

  it('with tenants, the ingest API needs the shared cost topic (trustedCostTopic): synth says so', () => {
    const tenants = [{ id: 'acme', publishers: ['111122223333'] }];
    expect(() => synth({ tenants, pushEndpoint: { ingest: true } })).toThrow(
      /trustedCostTopic=true/,
    );
    expect(() =>
      synth({ tenants, trustedCostTopic: true, pushEndpoint: { ingest: true } }),
    ).not.toThrow();
    expect(() => synth({ tenants, pushEndpoint: { azureTenants: ['acme'] } })).not.toThrow();
  });
});
