//! Tier 1 and 2 tests of the webhook server (SPEC §13).
