//! Prompts sent into interactive forks and for button clicks (SPEC §6, §9, §10).
//!
//! `[fork-started]` opens a fork (with a topic, without one, resumed by replying to a
//! background message, or resumed by a button click); `[fork-timeout]` nudges an idle fork,
//! then forces it to exit; `[button]` carries a button's stored prompt into the main session.

/// A fork opened with a topic (by `/fork topic` or `enter_fork(topic)`).
pub fn fork_started_with_topic(user_name: &str, topic: &str) -> String {
    format!(
        "[fork-started] You are now in an interactive forked session. Topic: {topic}\n\n\
         Take up the topic, then wait for {user_name} to answer before thinking about \
         leaving: they opened this fork to talk it through."
    )
}

/// A fork opened without a topic: the user leads.
pub fn fork_started_without_topic(user_name: &str) -> String {
    format!(
        "[fork-started] You are now in an interactive forked session. There is no topic: \
         {user_name} will lead, so wait for their message."
    )
}

/// A fork resumed because the user replied to a background fork's message; `message` is
/// the user's reply as the main session would have received it.
pub fn fork_resumed_from_reply(message: &str, age_secs: Option<u64>) -> String {
    let age = age_secs
        .map(|secs| {
            format!(
                " The message they replied to is {} old.",
                describe_age(secs)
            )
        })
        .unwrap_or_default();
    format!(
        "[fork-started] You are now in an interactive forked session, resumed from an \
         earlier fork because the user replied to its message.{age} {STALE_FORK}\n\n{message}"
    )
}

/// What a resumed fork is told about saving.
const STALE_FORK: &str = "The main session has moved on since this fork ran, so save_context \
     is unavailable here: use report_updates to carry findings back.";

/// An age for the agent to read: `45 seconds`, `12 minutes`, `3 hours`, `2 days`.
pub fn describe_age(secs: u64) -> String {
    let (n, unit) = match secs {
        0..=59 => (secs, "second"),
        60..=3_599 => (secs / 60, "minute"),
        3_600..=86_399 => (secs / 3_600, "hour"),
        _ => (secs / 86_400, "day"),
    };
    let plural = if n == 1 { "" } else { "s" };
    format!("{n} {unit}{plural}")
}

/// A background fork resumed because the user clicked one of its buttons.
pub fn fork_resumed_by_button(user_name: &str, inquiry_prompt: &str) -> String {
    format!(
        "[fork-started] You are now in an interactive fork resumed from a background \
         session; what happened in that session is in your history. {STALE_FORK}\n\n\
         {user_name} clicked a button on your output: {inquiry_prompt}\n\n\
         Deal with their request, then keep the conversation going: this is an interactive \
         fork, not a one-off answer."
    )
}

/// A button click outside any fork: its stored prompt, tagged.
pub fn button_prompt(inquiry_prompt: &str) -> String {
    format!("[button] {inquiry_prompt}")
}

/// The first idle notice, after `idle_minutes` without activity.
pub fn fork_idle_prompt(user_name: &str, idle_minutes: u32) -> String {
    let idle = minutes(idle_minutes);
    format!(
        "[fork-timeout] This fork has been idle for {idle}. If {user_name} \
         still seems engaged, ask them; otherwise exit the fork."
    )
}

/// The forced exit, one more idle period after the notice; `idle_minutes` is the configured
/// timeout, so the fork has been idle twice that long.
pub fn fork_forced_exit_prompt(idle_minutes: u32) -> String {
    format!(
        "[fork-timeout] This fork has been idle for {} and already had a timeout \
         notice. You MUST exit the fork now.",
        minutes(idle_minutes.saturating_mul(2))
    )
}

/// A whole number of minutes in words: `1 minute`, `20 minutes`.
pub fn minutes(n: u32) -> String {
    format!("{n} minute{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fork_start_prompts_are_tagged_and_carry_their_inputs() {
        let with_topic = fork_started_with_topic("Sam", "tax forms");
        assert!(with_topic.starts_with("[fork-started] "));
        assert!(with_topic.contains("Topic: tax forms\n\n"));
        assert!(with_topic.contains("Sam"));

        let without = fork_started_without_topic("Sam");
        assert!(without.starts_with("[fork-started] "));
        assert!(without.contains("no topic") && without.contains("Sam will lead"));

        let reply = fork_resumed_from_reply("[2026-02-24 Tue 02:30 PM PST] done yet?", Some(7_300));
        assert!(reply.starts_with("[fork-started] "));
        assert!(reply.contains("earlier fork"));
        assert!(reply.contains("is 2 hours old."), "{reply}");
        assert!(reply.contains("save_context is unavailable"), "{reply}");
        assert!(reply.ends_with("\n\n[2026-02-24 Tue 02:30 PM PST] done yet?"));
        let ageless = fork_resumed_from_reply("hi", None);
        assert!(!ageless.contains(" old."), "{ageless}");
        assert!(ageless.contains("save_context is unavailable"));

        let button = fork_resumed_by_button("Sam", "snooze the workout");
        assert!(button.starts_with("[fork-started] "));
        assert!(button.contains("save_context is unavailable"));
        assert!(button.contains("\n\nSam clicked a button on your output: snooze the workout\n\n"));
    }

    #[test]
    fn ages_read_in_the_largest_whole_unit() {
        assert_eq!(describe_age(1), "1 second");
        assert_eq!(describe_age(59), "59 seconds");
        assert_eq!(describe_age(60), "1 minute");
        assert_eq!(describe_age(3_599), "59 minutes");
        assert_eq!(describe_age(7_200), "2 hours");
        assert_eq!(describe_age(86_400 * 3 + 5), "3 days");
    }

    #[test]
    fn button_outside_a_fork_is_tagged_button() {
        assert_eq!(button_prompt("mark it done"), "[button] mark it done");
    }

    #[test]
    fn idle_notice_then_forced_exit_at_twice_the_timeout() {
        let notice = fork_idle_prompt("Sam", 10);
        assert!(notice.starts_with("[fork-timeout] This fork has been idle for 10 minutes."));
        assert!(notice.contains("Sam"));
        let forced = fork_forced_exit_prompt(10);
        assert!(forced.starts_with("[fork-timeout] This fork has been idle for 20 minutes"));
        assert!(forced.contains("MUST exit"));
        // One minute is one minute, not "1 minutes".
        assert!(fork_idle_prompt("Sam", 1).contains("idle for 1 minute."));
        assert!(fork_forced_exit_prompt(1).contains("idle for 2 minutes and"));
    }
}
