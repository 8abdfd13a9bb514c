import { maskedTemplate, synth } from './helpers';

// Asset hashes (S3 keys, bundle hashes) are masked: the snapshots change when the
// infrastructure changes, not when lambda code does or the machine differs.
describe('snapshots', () => {
  const { stateful, stateless } = synth();

  it('stateful stack', () => {
    expect(maskedTemplate(stateful)).toMatchSnapshot();
  });

  it('stateless stack', () => {
    expect(maskedTemplate(stateless)).toMatchSnapshot();
  });

  it('masks every asset hash', () => {
    expect(JSON.stringify(maskedTemplate(stateless))).not.toMatch(/[0-9a-f]{64}/);
    expect(JSON.stringify(maskedTemplate(stateless))).toContain('<ASSET_HASH>.zip');
  });
});
