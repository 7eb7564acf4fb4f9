#!/usr/bin/env bash
# The report's browser tests open report.html in headless Chromium. `make test` calls this
# first: where Chromium is missing and the system's packages can be installed (root with
# apt-get, as on a fresh Debian machine or in CI) it installs Debian's chromium; elsewhere
# it says what to install and those two tests report themselves skipped.
set -u
for name in chromium chromium-browser google-chrome; do
    command -v "$name" >/dev/null 2>&1 && exit 0
done
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Chromium for the report's browser tests (apt-get install chromium) ..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q chromium >/dev/null 2>&1 \
        || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium >/dev/null 2>&1; } \
        || echo "Could not install Chromium; the two browser tests will be skipped."
else
    echo "No Chromium found: the report's two browser tests will be skipped" \
        "(install it, e.g. 'sudo apt-get install chromium', to run them)."
fi
exit 0
