import { Match } from 'aws-cdk-lib/assertions';
import { ConfigError } from '../../lib/config';
import { PushEndpoint } from '../../lib/constructs/push-endpoint';
import { DEPLOY_LIMITS } from '../../lib/deploy-limits';
import { resourcesOfType, synth, type Synthesized } from './helpers';

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

  describe('AWS callers (iamCallers)', () => {
    const CALLERS = [
      {
        principal: 'arn:aws:iam::111122223333:role/billing/metering-producer',
        tenant: 'acme',
        source: 'metering',
      },
    ];
    const endpointOf = (s: Synthesized) =>
      s.stateless.node.findChild('PushEndpoint') as PushEndpoint;
    const pushEnvironment = (s: Synthesized): Record<string, string> => {
      const [fn] = Object.values(
        resourcesOfType(s.statelessTemplate, 'AWS::Lambda::Function'),
      ).filter((f) => f.Properties?.FunctionName === 'billing-dedup-dev-push-endpoint');
      return (fn.Properties?.Environment as { Variables: Record<string, string> }).Variables;
    };

    it('adds POST /v1/iam/events with AWS_IAM authorization; the other routes keep none', () => {
      const { statelessTemplate: t } = synth({
        pushEndpoint: { ingest: true, iamCallers: CALLERS },
      });
      t.resourceCountIs('AWS::ApiGatewayV2::Route', 2);
      t.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: 'POST /v1/iam/events',
        AuthorizationType: 'AWS_IAM',
      });
      t.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: 'POST /v1/events',
        AuthorizationType: 'NONE',
      });
      const output = t.findOutputs('PushIamRouteArn');
      expect(JSON.stringify(output.PushIamRouteArn.Value)).toMatch(
        /execute-api.*\/\*\/POST\/v1\/iam\/events/,
      );
    });

    it('is absent without iamCallers (no route, no output)', () => {
      const { statelessTemplate: t } = synth({ pushEndpoint: { ingest: true } });
      t.resourcePropertiesCountIs(
        'AWS::ApiGatewayV2::Route',
        { RouteKey: 'POST /v1/iam/events' },
        0,
      );
      expect(Object.keys(t.findOutputs('PushIamRouteArn'))).toHaveLength(0);
    });

    it('the bindings travel in the bundled config file, not the 4 KB environment: 2,000 roles deploy', () => {
      const many = Array.from({ length: 2000 }, (_, i) => ({
        principal: `arn:aws:iam::${String(100000000000 + i)}:role/billing/metering-producer-${i}`,
        tenant: 'acme',
        source: 'metering',
      }));
      const s = synth({ pushEndpoint: { iamCallers: many } });
      const env = pushEnvironment(s);
      expect(env.PUSH_ENDPOINT).toBe('{}');
      expect(env.FUNCTION_CONFIG_FILE).toBe('billing-dedup-config.json');
      expect(JSON.stringify(env).length).toBeLessThan(DEPLOY_LIMITS.lambdaEnvironmentBytes);
      expect(JSON.parse(endpointOf(s).function.bundledConfig as string)).toEqual({
        iamCallers: many,
      });
    });

    it.each([
      [
        [{ ...CALLERS[0], principal: 'arn:aws:iam::111122223333:role/*' }],
        /iamCallers\[0\]\.principal .*is a pattern/,
      ],
      [[CALLERS[0], { ...CALLERS[0], tenant: 'globex' }], /iamCallers\[1\]\.principal binds role/],
      [[{ ...CALLERS[0], tenant: 'ACME' }], /iamCallers\[0\]\.tenant/],
    ])('a bad iamCallers is a synth error naming the entry and fix: %j', (iamCallers, message) => {
      expect(() => synth({ pushEndpoint: { iamCallers } })).toThrow(ConfigError);
      expect(() => synth({ pushEndpoint: { iamCallers } })).toThrow(message);
    });

    it('with tenants: the tenant must be configured, the source one it allows, and the shared cost topic trusted', () => {
      const tenants = [{ id: 'acme', publishers: ['111122223333'], sources: ['metering'] }];
      const base = { tenants, trustedCostTopic: true };
      expect(() => synth({ ...base, pushEndpoint: { iamCallers: CALLERS } })).not.toThrow();
      expect(() =>
        synth({ ...base, pushEndpoint: { iamCallers: [{ ...CALLERS[0], tenant: 'globex' }] } }),
      ).toThrow(/iamCallers\[0\]\.tenant: "globex" is not one of tenants\[\]\.id \(acme\)/);
      expect(() =>
        synth({ ...base, pushEndpoint: { iamCallers: [{ ...CALLERS[0], source: 'aws' }] } }),
      ).toThrow(/iamCallers\[0\]\.source: "aws" is not one of tenant acme's sources \(metering\)/);
      expect(() => synth({ tenants, pushEndpoint: { iamCallers: CALLERS } })).toThrow(
        /trustedCostTopic=true/,
      );
    });
  });
});
