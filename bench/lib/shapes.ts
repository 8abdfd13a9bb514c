/** Bundle shapes and the init measurements of each (pure: no esbuild, no CDK; bundle.ts measures). */
import type { BundleShape } from '../../lib/constructs/consumer-function';
import type { ImplementationName } from './harness';

export type { BundleShape };
export const SHAPES: BundleShape[] = [
  { format: 'esm', sdk: 'external' },
  { format: 'esm', sdk: 'bundled' },
  { format: 'cjs', sdk: 'external' },
  { format: 'cjs', sdk: 'bundled' },
];

export interface ShapeMeasurement extends BundleShape {
  /** Minified bytes of the bundle (source map not counted). */
  bytes: number;
  /** Median wall-clock time of the cold loads, ms. */
  initMs: number;
  /** Median CPU time (user + system, every thread) of the same loads, ms: less sensitive to a busy machine. */
  initCpuMs: number;
}

export interface HandlerBundles {
  entry: string;
  shapes: ShapeMeasurement[];
  /** Largest inputs of the deployed shape (bytes in output), from the esbuild metafile. */
  topInputs: { path: string; bytes: number }[];
}

export interface InitMeasurements {
  /** Version of the `node` that ran the cold loads (`--init-node`). */
  node: string;
  /** Lambda runtime of the consumers. */
  runtime: string;
  deployed: BundleShape;
  nodeOptions: string;
  samples: number;
  handlers: Record<ImplementationName, HandlerBundles>;
  /** A bundle of the DynamoDB client alone, deployed shape, loaded with the others: the floor of init. */
  bareClient: { bytes: number; initMs: number; initCpuMs: number };
}

export const shapeName = (shape: BundleShape): string =>
  `${shape.format.toUpperCase()}, SDK ${shape.sdk}`;
export const sameShape = (a: BundleShape, b: BundleShape): boolean =>
  a.format === b.format && a.sdk === b.sdk;
/** The measurement of the shape the stack deploys. */
export const deployedOf = (init: InitMeasurements, name: ImplementationName): ShapeMeasurement => {
  const found = init.handlers[name].shapes.find((shape) => sameShape(shape, init.deployed));
  if (!found) throw new Error(`no measurement of the deployed shape for ${name}`);
  return found;
};
