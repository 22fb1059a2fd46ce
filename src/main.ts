#!/usr/bin/env node
import { runCli } from './cli/run.js';

process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
});
// Everything is closed by now; a handle some library forgot must not keep a stopped server alive.
setTimeout(() => process.exit(), 5000).unref();
