#!/usr/bin/env bash
# Headless Chromium and its WebDriver for the dashboard's browser tests (tests/dashboard):
# Debian's `chromium` and `chromium-driver` packages. Does nothing when both programs are on PATH;
# installs them with apt-get as root (or through a sudo that needs no password); anything else
# fails saying what to run — the browser tests are never skipped.
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1; }

if { have chromium || have chromium-browser; } && have chromedriver; then
    exit 0
fi

how="install them with: sudo apt-get install chromium chromium-driver (on another system, put a \
chromium and the chromedriver of the same version on PATH)"
fail() {
    echo "the dashboard's browser tests need chromium and chromedriver, which are not on PATH: $how" >&2
    [ -z "${1:-}" ] || echo "($1)" >&2
    exit 1
}

have apt-get || fail "no apt-get here"
if [ "$(id -u)" -eq 0 ]; then
    sudo=()
elif have sudo && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
else
    fail "installing them needs root"
fi

echo "installing chromium and chromium-driver (apt-get) for the browser tests"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get install -y -q chromium chromium-driver \
    || { "${sudo[@]}" apt-get update -q && "${sudo[@]}" apt-get install -y -q chromium chromium-driver; } \
    || fail "apt-get failed"
{ have chromium || have chromium-browser; } && have chromedriver \
    || fail "apt-get installed them, yet they are not on PATH"
