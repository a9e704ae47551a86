#!/usr/bin/env bash
# The status page in a real headless Chromium: see status_page_test.py. Needs chromium,
# fonts-dejavu-core, mosquitto, mosquitto-clients and python3 (make test-deps installs them) and
# the gateway ($SKYFRAME_BIN, default .build/debug/skyframe). Last line: "status-page: N passed,
# M failed".
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec python3 "$here/status_page_test.py" "$@"
