import { ENV } from '../../contract/environment';

// Tests assert outcomes, not log lines: keep Powertools EMF and INFO logs out of the test output.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env[ENV.logLevel] ??= 'SILENT';
