/** What names an export execution, and the CURRENT pointer of its (tenant, source, period). */

export interface ExecutionRef {
  tenant: string;
  source: string;
  period: string;
  executionId: string;
}

/** The CURRENT pointer of a (tenant, source, period). */
export interface CurrentPointer {
  executionId: string;
  order: string;
  switchedAt: string;
  previousExecutionId?: string;
  /** Switches so far (0 for a pointer written before switches were counted). */
  sequence: number;
  /** The switch sequence whose correction pass completed (0: none). */
  correctedSequence: number;
  /** When the source first became current for the (tenant, period); absent on older pointers. */
  firstSwitchedAt?: string;
  /** The source's declared precedence as of its last switch (core/export-authority.ts). */
  precedence?: number;
}
