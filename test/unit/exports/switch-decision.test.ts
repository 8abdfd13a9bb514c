import { switchDecision, type SwitchCandidate } from '../../../lambda/core/exports/switch-decision';

const execution = (overrides: Partial<SwitchCandidate> = {}): SwitchCandidate => ({
  executionId: 'e2',
  order: '2026-02-02T00:00:00Z#e2',
  status: 'planned',
  tasksDone: 3,
  tasksTotal: 3,
  ...overrides,
});
const current = { executionId: 'e1', order: '2026-02-01T00:00:00Z#e1', sequence: 4 };

describe('switchDecision', () => {
  it('an execution with an uncommitted task, or a failed one, changes nothing', () => {
    expect(switchDecision(execution({ tasksDone: 2 }), current)).toEqual({ kind: 'incomplete' });
    expect(switchDecision(execution({ status: 'failed' }), undefined)).toEqual({
      kind: 'incomplete',
    });
  });

  it('the current execution is current already (a replayed switch)', () => {
    expect(switchDecision(execution(), { ...current, executionId: 'e2' })).toEqual({
      kind: 'already-current',
    });
  });

  it('an execution not newer than the current one (by order) is superseded', () => {
    expect(switchDecision(execution({ order: current.order }), current)).toEqual({
      kind: 'superseded',
      currentExecutionId: 'e1',
    });
  });

  it('a newer execution replaces the current one: next sequence, previous named', () => {
    expect(switchDecision(execution(), current, 2)).toEqual({
      kind: 'switch',
      change: {
        executionId: 'e2',
        order: execution().order,
        previousExecutionId: 'e1',
        firstSwitch: false,
        precedence: 2,
        sequence: 5,
      },
    });
  });

  it('the first switch of a (tenant, source, period) has sequence 1 and no previous', () => {
    expect(switchDecision(execution(), undefined)).toEqual({
      kind: 'switch',
      change: { executionId: 'e2', order: execution().order, firstSwitch: true, sequence: 1 },
    });
  });
});
