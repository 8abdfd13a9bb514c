import type { Context } from 'aws-lambda';

/**
 * The running invocation's remaining time, for adapters built once per container: the handler tells
 * it each invocation's context, the stores' back-offs read it. Without a context (a local caller) no
 * limit is known.
 */
export class RemainingTime {
  private context: Pick<Context, 'getRemainingTimeInMillis'> | undefined;

  use(context: Pick<Context, 'getRemainingTimeInMillis'> | undefined): void {
    this.context = context;
  }

  readonly ms = (): number =>
    this.context ? this.context.getRemainingTimeInMillis() : Number.POSITIVE_INFINITY;
}
