/**
 * The snapshot switch of a (tenant, source, period), decided over plain values: whether a complete
 * execution replaces the current one, and what the switch changes. The store turns the decision into
 * one conditional transaction (adapters/export-switch.ts) and decides again when it loses a race.
 */

export interface SwitchCandidate {
  executionId: string;
  order: string;
  status: 'planned' | 'current' | 'superseded' | 'failed';
  tasksDone: number;
  tasksTotal: number;
}

export interface PointerAsRead {
  executionId: string;
  order: string;
  /** Switches so far (0 for a pointer written before switches were counted). */
  sequence: number;
}

export type SwitchDecision =
  /** Some task is not committed yet, or a file of the execution failed: nothing changes. */
  | { kind: 'incomplete' }
  /** The execution is the current one already (a replayed switch): report the stored diff. */
  | { kind: 'already-current' }
  /** The current execution is as new or newer (by `order`): the execution never becomes current. */
  | { kind: 'superseded'; currentExecutionId: string }
  | { kind: 'switch'; change: SwitchChange };

/** What a switch writes: the pointer moved to the execution, the execution replaced (if any). */
export interface SwitchChange {
  executionId: string;
  order: string;
  /** The execution replaced, marked superseded; the pointer must still name it. */
  previousExecutionId?: string;
  /** The first switch of the (tenant, source, period) records when the source first became current. */
  firstSwitch: boolean;
  /** The source's declared precedence as of this switch; undefined removes an earlier one. */
  precedence?: number;
  /** The switch's sequence once written (the version of its corrections). */
  sequence: number;
}

export const switchDecision = (
  execution: SwitchCandidate,
  current: PointerAsRead | undefined,
  precedence?: number,
): SwitchDecision => {
  if (execution.tasksDone < execution.tasksTotal || execution.status === 'failed') {
    return { kind: 'incomplete' };
  }
  if (current?.executionId === execution.executionId) return { kind: 'already-current' };
  if (current && current.order >= execution.order) {
    return { kind: 'superseded', currentExecutionId: current.executionId };
  }
  return {
    kind: 'switch',
    change: {
      executionId: execution.executionId,
      order: execution.order,
      ...(current ? { previousExecutionId: current.executionId } : {}),
      firstSwitch: current === undefined,
      ...(precedence === undefined ? {} : { precedence }),
      sequence: (current?.sequence ?? 0) + 1,
    },
  };
};
