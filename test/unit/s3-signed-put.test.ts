import { encodeKeyPath, objectLocation } from '../../lambda/adapters/s3-signed-put';

describe('where the archive’s signed put goes', () => {
  it('virtual-hosted on the region’s S3 endpoint', () => {
    expect(objectLocation('archive-bucket', 'a/b.jsonl.gz', 'eu-west-1')).toEqual({
      protocol: 'https:',
      hostname: 'archive-bucket.s3.eu-west-1.amazonaws.com',
      path: '/a/b.jsonl.gz',
    });
  });

  it('the China partition’s domain', () => {
    expect(objectLocation('b', 'k', 'cn-north-1').hostname).toBe(
      'b.s3.cn-north-1.amazonaws.com.cn',
    );
  });

  it('path-style for a bucket with dots (its name cannot be a TLS host label) and on an endpoint', () => {
    expect(objectLocation('my.bucket', 'k', 'us-east-1')).toEqual({
      protocol: 'https:',
      hostname: 's3.us-east-1.amazonaws.com',
      path: '/my.bucket/k',
    });
    expect(objectLocation('b', 'k', 'us-east-1', 'http://127.0.0.1:4569', true)).toEqual({
      protocol: 'http:',
      hostname: '127.0.0.1',
      port: 4569,
      path: '/b/k',
    });
  });

  it('encodes each segment of the key once, keeping the slashes and RFC 3986 unreserved characters', () => {
    expect(encodeKeyPath("t=acme/day=2026-11-03/a b+c!'()*~_-.é")).toBe(
      't%3Dacme/day%3D2026-11-03/a%20b%2Bc%21%27%28%29%2A~_-.%C3%A9',
    );
  });
});
