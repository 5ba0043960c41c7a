#!/usr/bin/env bash
# Installs a Claude Code CLI release into <repo>/.tools, for `make run` (when no other claude is
# found), `make test` and `make test-cli`, without a global install.
#
#   tools/install-claude.sh                        the pinned release, into .tools/node_modules/
#   tools/install-claude.sh VERSION | latest       another release, into .tools/claude-VERSION/
#   tools/install-claude.sh --print-binary [VERSION]    where that release's binary is (or goes)
#   tools/install-claude.sh --print-version [VERSION | latest]    the release, `latest` resolved
#
# npm installs the package for this machine (Linux x64/arm64 with glibc or musl, macOS x64/arm64).
# Safe to run repeatedly: it does nothing when that release is already there.
set -euo pipefail

# The release the bot is built and tested against.
PINNED_VERSION="2.1.332"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
package="@anthropic-ai/claude-code"

say() { echo "install-claude: $*" >&2; }

is_musl() {
    ls /lib/ld-musl-* >/dev/null 2>&1 || { ldd --version 2>&1 | grep -qi musl; }
}

# The npm platform package's suffix for this machine: linux-x64, linux-arm64-musl, darwin-arm64…
platform() {
    local os arch
    case "$(uname -s)" in
        Linux) os=linux ;;
        Darwin) os=darwin ;;
        *) return 1 ;;
    esac
    case "$(uname -m)" in
        x86_64 | amd64) arch=x64 ;;
        aarch64 | arm64) arch=arm64 ;;
        *) return 1 ;;
    esac
    # An x64 shell on Apple silicon (Rosetta) still gets the native arm64 build.
    if [ "$os" = darwin ] && [ "$arch" = x64 ] &&
        [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || echo 0)" = 1 ]; then
        arch=arm64
    fi
    if [ "$os" = linux ] && is_musl; then
        echo "$os-$arch-musl"
    else
        echo "$os-$arch"
    fi
}

resolve_version() {
    case "${1:-}" in
        "" | pinned) echo "$PINNED_VERSION" ;;
        latest)
            command -v npm >/dev/null 2>&1 || {
                say "npm is needed to find the latest release (install Node.js 22+)"
                return 1
            }
            npm view "$package" version
            ;;
        *)
            [[ "$1" =~ ^[0-9]+\.[0-9]+\.[0-9]+([.-][0-9A-Za-z.-]+)?$ ]] || {
                say "$1 is not a release (examples: 2.1.332, latest)"
                return 1
            }
            echo "$1"
            ;;
    esac
}

prefix_for() {
    if [ "$1" = "$PINNED_VERSION" ]; then
        echo "$repo_root/.tools"
    else
        echo "$repo_root/.tools/claude-$1"
    fi
}

binary_for() {
    local key
    key="$(platform)" || {
        say "Claude Code has no package for $(uname -s) $(uname -m); install claude another way and set OLLIM_CLAUDE_BIN to it"
        return 1
    }
    echo "$(prefix_for "$1")/node_modules/$package-$key/claude"
}

case "${1:-}" in
    --print-binary)
        version="$(resolve_version "${2:-}")"
        binary_for "$version"
        exit
        ;;
    --print-version)
        resolve_version "${2:-}"
        exit
        ;;
    -h | --help)
        sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
        exit
        ;;
esac

version="$(resolve_version "${1:-}")"
binary="$(binary_for "$version")"
prefix="$(prefix_for "$version")"

if [ -x "$binary" ] && [ "$("$binary" --version 2>/dev/null | cut -d' ' -f1)" = "$version" ]; then
    exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
    say "no claude CLI was found, and npm, which would install one, is not installed."
    say "Either install Claude Code with its own installer (curl -fsSL https://claude.ai/install.sh | bash)"
    say "or install Node.js 22+ (it brings npm) and run this again to put release $version into .tools/."
    exit 1
fi

mkdir -p "$prefix"
say "installing $package@$version into $prefix"
npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "$package@$version"

if [ ! -x "$binary" ]; then
    say "npm did not install $(basename "$(dirname "$binary")") (optional dependencies turned off?); expected $binary"
    exit 1
fi
say "ready: $binary"
