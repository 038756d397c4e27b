#!/usr/bin/env bash
# Checks the HTML reports of `wavec run --report` in a real headless browser:
# Chromium from the OS packages (Debian's `chromium`), installed here when missing.
# Kept out of `.ci/run` because installing a browser does not fit CI's time budget.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v chromium >/dev/null 2>&1; then
    apt-get update
    apt-get install -y chromium
fi
cargo test -p wavec-tests --test browser --locked -- --ignored
