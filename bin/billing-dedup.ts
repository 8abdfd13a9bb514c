#!/usr/bin/env node
import { App } from 'aws-cdk-lib';
import { ConfigError } from '../lib/config';
import { buildApp } from '../lib/app';
import { checkDeployLimits } from '../lib/deploy-limits';
import { InvariantError } from '../lib/invariants';

const app = new App();
try {
  buildApp(app);
  checkDeployLimits(app.synth());
} catch (err) {
  if (err instanceof ConfigError || err instanceof InvariantError) {
    // A clean message instead of a stack trace: these errors already name the fix.
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}
