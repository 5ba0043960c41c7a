# The README's commands. `make run` starts the bot; `make test` runs every test tier.
CARGO ?= cargo

.PHONY: run install test test-cli lint bench fmt claude chromium

# Where the pinned Claude Code CLI goes in .tools/ (the package for this machine's platform).
CLAUDE_PINNED = $(shell bash tools/install-claude.sh --print-binary)

# The tests: cargo-nextest when it is installed, else cargo test.
TEST_RUN = if $(CARGO) nextest --version >/dev/null 2>&1; then \
		$(CARGO) nextest run --no-fail-fast $(1); \
	else \
		$(CARGO) test --no-fail-fast $(1); \
	fi

# The bot with the claude you have: OLLIM_CLAUDE_BIN (from the environment or .env), else
# `claude` on PATH; only when there is neither is the pinned release installed into .tools/.
run:
	@configured="$$OLLIM_CLAUDE_BIN"; \
	if [ -z "$$configured" ] && [ -f .env ]; then \
		configured=$$(sed -n 's/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}OLLIM_CLAUDE_BIN=//p' .env | tail -n 1); \
	fi; \
	if [ -z "$$configured" ] && ! command -v claude >/dev/null 2>&1; then \
		bash tools/install-claude.sh || exit 1; \
		export OLLIM_CLAUDE_BIN="$(CLAUDE_PINNED)"; \
	fi; \
	$(CARGO) run --release --bin ollim-bot --

# `ollim-bot` on PATH (into ~/.cargo/bin, or CARGO_INSTALL_ROOT/bin).
install:
	$(CARGO) install --path . --locked --bin ollim-bot
	@installed="$${CARGO_INSTALL_ROOT:-$${CARGO_HOME:-$$HOME/.cargo}}/bin/ollim-bot"; \
	found=$$(command -v ollim-bot || true); \
	if [ "$$found" != "$$installed" ]; then \
		echo "make install: installed $$installed, but your PATH runs $${found:-no ollim-bot}:" \
			"put $$(dirname "$$installed") first on PATH" >&2; \
	fi

# The pinned Claude Code CLI, installed into .tools/ (does nothing when it is there).
claude:
	@bash tools/install-claude.sh

# Headless Chromium and chromedriver for the dashboard's browser tests (Debian's chromium and
# chromium-driver): installed where missing, or a failure saying how.
chromium:
	@bash tools/install-chromium.sh

test: claude chromium
	@$(call TEST_RUN,--workspace)

# The tests that drive the real claude CLI, against another release installed beside the
# pinned one: `make test-cli CLI=2.1.340` or `make test-cli CLI=latest`.
test-cli:
	@test -n "$(CLI)" || { echo "usage: make test-cli CLI=<version>|latest" >&2; exit 2; }
	@version=$$(bash tools/install-claude.sh --print-version "$(CLI)") && \
	bash tools/install-claude.sh "$$version" && \
	bin=$$(bash tools/install-claude.sh --print-binary "$$version") && \
	echo "test-cli: Claude Code $$version ($$bin)" && \
	export OLLIM_CLAUDE_BIN="$$bin" OLLIM_TEST_CLAUDE_VERSION="$$version" && \
	$(call TEST_RUN,--test brain --test console --test forks --test webhooks --test discord)

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

bench:
	$(CARGO) bench --bench bench

fmt:
	$(CARGO) fmt --all
