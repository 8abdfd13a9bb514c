/** `pushEndpoint.iamCallers`: one IAM role per entry, matched by account and name; errors name the fix. */
import { parseFunctionConfig } from '../../../contract/function-config';
import { iamRoleKey, iamRoleOf, parseIamCallers } from '../../../contract/iam-callers';
import { pushConfigFromParts, pushEnvironmentConfig } from '../../../contract/push-endpoint';

const ROLE = 'arn:aws:iam::111122223333:role/billing/metering-producer';
const binding = (principal: unknown, extra: object = {}) => ({
  principal,
  tenant: 'acme',
  source: 'metering',
  ...extra,
});

describe('parseIamCallers', () => {
  it('accepts role ARNs with or without a path, in every partition', () => {
    const callers = [
      binding(ROLE),
      binding('arn:aws-us-gov:iam::111122223333:role/Exporter'),
      binding('arn:aws:iam::444455556666:role/a/b/c/AWSReservedSSO_Admin_0123@x.com'),
    ];
    expect(parseIamCallers(callers)).toEqual(callers);
    expect(iamRoleOf(ROLE)).toEqual({
      partition: 'aws',
      account: '111122223333',
      name: 'metering-producer',
    });
  });

  it.each([
    ['arn:aws:iam::111122223333:role/*', /is a pattern; name one role/],
    ['arn:aws:iam::111122223333:role/billing/*', /is a pattern/],
    ['arn:aws:iam::111122223333:role/prod-?', /is a pattern/],
    ['111122223333', /is an account or an IAM user; bind a role/],
    ['arn:aws:iam::111122223333:root', /is an account or an IAM user/],
    ['arn:aws:iam::111122223333:user/alice', /is an account or an IAM user/],
    [
      'arn:aws:sts::111122223333:assumed-role/Exporter/session-1',
      /is a role session; bind the role itself: arn:aws:iam::111122223333:role\/Exporter/,
    ],
    ['arn:aws:iam::1111:role/x', /must be an IAM role ARN/],
    [`arn:aws:iam::111122223333:role/${'n'.repeat(65)}`, /at most 64/],
    [42, /must be an IAM role ARN/],
  ])('refuses principal %j', (principal, message) => {
    expect(() => parseIamCallers([binding(principal)])).toThrow(
      /pushEndpoint\.iamCallers\[0\]\.principal/,
    );
    expect(() => parseIamCallers([binding(principal)])).toThrow(message);
  });

  it('refuses a role bound twice, also under another path or case (names are unique per account)', () => {
    expect(() =>
      parseIamCallers([
        binding(ROLE),
        binding('arn:aws:iam::111122223333:role/Metering-Producer', { tenant: 'initech' }),
      ]),
    ).toThrow(
      /iamCallers\[1\]\.principal binds role "Metering-Producer" of account 111122223333 again \(iamCallers\[0\]\)/,
    );
    expect(() =>
      parseIamCallers([binding(ROLE), binding('arn:aws:iam::444455556666:role/metering-producer')]),
    ).not.toThrow();
  });

  it.each([
    [[], /non-empty list/],
    [{}, /non-empty list/],
    [[binding(ROLE, { tenant: 'Acme' })], /iamCallers\[0\]\.tenant .*tenant slug/],
    [[binding(ROLE, { source: undefined })], /iamCallers\[0\]\.source/],
    [[binding(ROLE, { role: 'x' })], /iamCallers\[0\]\.role is not a known field/],
  ])('refuses %j', (value, message) => {
    expect(() => parseIamCallers(value)).toThrow(message);
  });

  it('keys a role by partition, account and lower-cased name (what a session ARN carries)', () => {
    expect(iamRoleKey(iamRoleOf(ROLE)!)).toBe('aws:111122223333:metering-producer');
  });
});

describe('where the bindings travel', () => {
  const config = {
    ingest: true,
    iamCallers: [{ principal: ROLE, tenant: 'acme', source: 'metering' }],
  };

  it('not in PUSH_ENDPOINT, but in the bundled function configuration, and read back whole', () => {
    const environment = JSON.stringify(pushEnvironmentConfig(config));
    expect(environment).toBe('{"ingest":true}');
    const bundled = parseFunctionConfig(JSON.stringify({ iamCallers: config.iamCallers }), 'file');
    expect(pushConfigFromParts(environment, bundled.iamCallers)).toEqual(config);
  });

  it('iamCallers alone enables the endpoint; a bad bundled list is refused naming the file', () => {
    expect(pushConfigFromParts('{}', config.iamCallers)).toEqual({ iamCallers: config.iamCallers });
    expect(() => pushConfigFromParts('{}', undefined)).toThrow(/enables nothing/);
    expect(() => parseFunctionConfig('{"iamCallers":[]}', 'the-file.json')).toThrow(
      /the-file.json: pushEndpoint.iamCallers must be a non-empty list/,
    );
  });
});
