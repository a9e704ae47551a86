#!/usr/bin/env bash
# aiocoap (PyPI, pure Python) in .build-coap/venv: the second CoAP implementation the CoAP way in
# is tried with (the first is libcoap's coap-client). Run in the background by Tests/run-all.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.build-coap/venv
if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check 'aiocoap==0.4.17'
"$venv/bin/python" -c 'import aiocoap.meta; print("aiocoap", aiocoap.meta.version)'
