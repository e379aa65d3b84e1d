#!/usr/bin/env node
// The installed command: the compiled CLI (built by `npm ci` through the prepare script).
import '../dist/src/cli/index.js';
