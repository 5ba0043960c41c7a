# The README's commands. `make run` starts the bot; `make test` runs every test tier.
CARGO ?= cargo

.PHONY: run test lint bench fmt claude

# The pinned CLI in .tools/ is used when no other claude is configured or on PATH.
CLAUDE_PINNED := $(CURDIR)/.tools/node_modules/@anthropic-ai/claude-code-linux-x64/claude

run: claude
	@if [ -z "$$OLLIM_CLAUDE_BIN" ] && ! command -v claude >/dev/null 2>&1; then \
		export OLLIM_CLAUDE_BIN="$(CLAUDE_PINNED)"; \
	fi; \
	$(CARGO) run --release --bin ollim-bot --

# The real Claude Code CLI for the tier-2 tests, pinned, installed into .tools/ (idempotent).
claude:
	@bash tools/install-claude.sh

test: claude
	@if $(CARGO) nextest --version >/dev/null 2>&1; then \
		$(CARGO) nextest run --workspace --no-fail-fast; \
	else \
		$(CARGO) test --workspace --no-fail-fast; \
	fi

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

bench:
	$(CARGO) bench --bench bench

fmt:
	$(CARGO) fmt --all
