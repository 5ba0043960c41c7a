//! Tier 3 groundwork: the fake Discord (`tests/support/fake_discord`) proven against a real
//! serenity client, before the bot itself is tested against it.

#[allow(dead_code)]
#[path = "../support/mod.rs"]
mod support;

mod fake_smoke;
mod serenity_client;
