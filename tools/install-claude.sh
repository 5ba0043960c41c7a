#!/usr/bin/env bash
# Installs the pinned Claude Code CLI into <repo>/.tools so the tier-2 tests
# (cargo test --test brain) can drive the real binary without a global install.
# Safe to run repeatedly: it does nothing when the pinned version is already there.
set -euo pipefail

version="2.1.332"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="$repo_root/.tools"
binary="$prefix/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
package_json="$prefix/node_modules/@anthropic-ai/claude-code/package.json"

installed_version() {
    [ -f "$package_json" ] || return 1
    node -e 'process.stdout.write(require(process.argv[1]).version)' "$package_json" 2>/dev/null
}

if [ -x "$binary" ] && [ "$(installed_version || true)" = "$version" ]; then
    exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
    echo "install-claude: npm is required (install Node.js 18+ first)" >&2
    exit 1
fi

mkdir -p "$prefix"
echo "install-claude: installing @anthropic-ai/claude-code@$version into $prefix" >&2
npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
    "@anthropic-ai/claude-code@$version"

if [ ! -x "$binary" ]; then
    echo "install-claude: expected binary missing at $binary" >&2
    exit 1
fi
echo "install-claude: ready: $binary" >&2
