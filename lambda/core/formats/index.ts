/** Input formats: SQS record (decoded) → normalized event. Pure; no I/O, no AWS SDK. */
export { parseCostEvent } from './cost';
export { parseAlertEvent } from './alert';
