use super::*;

#[test]
fn refusal_display_and_string_are_its_text() {
    let busy = Refusal::UserBusy;
    assert_eq!(busy.to_string(), busy.text());
    assert_eq!(String::from(busy.clone()), busy.text());
    assert!(busy.text().starts_with("User is mid-conversation."));
}

#[test]
fn the_budgets_refusal_reads_as_the_spec_sentence() {
    let refusal = Refusal::from(crate::records::ping_budget::Refusal::BudgetExhausted);
    assert_eq!(
        refusal.to_string(),
        "Budget exhausted (0 remaining). Use report_updates to pass findings to the main session instead."
    );
}

#[test]
fn a_stopped_actor_is_named_not_mistaken_for_a_refusal() {
    let gone = Refusal::ActorGone(Peer::PingBudget).to_string();
    assert!(
        gone.starts_with("Error: the ping budget is not running"),
        "{gone}"
    );
    assert!(!gone.contains("Budget exhausted"));
}

/// Every refusal, for the checks below.
fn every_refusal() -> Vec<Refusal> {
    use Refusal::*;
    let mut all = vec![
        AlreadyPinged,
        UserBusy,
        BudgetExhausted,
        PingingDisabled,
        PingOutsideBackground,
        ChainLimitReached,
        NoReminderContext,
        FollowUpNotScheduled("<cause>".into()),
        SaveContextInBackground,
        NotInInteractiveFork,
        ReportingDisabled,
        NotInFork,
        EnterForkInBackground,
        AlreadyInFork,
        ForkAlreadyOpen,
        ExitForkInBackground,
        QuietHours {
            until: "<cause>".into(),
        },
        AlreadySentThis {
            sent_at: "<cause>".into(),
        },
        NotOffered("<cause>".into()),
        ReminderTimeMissing,
        ReminderTimeTwice,
        ReminderTimeUnreadable("<cause>".into()),
        ReminderTimePassed("<cause>".into()),
        ReminderRefused("<cause>".into()),
        ReminderNotSaved("<cause>".into()),
        ReminderNotFound("<cause>".into()),
        ReminderIdInvalid("<cause>".into()),
        RemindersUnreadable("<cause>".into()),
        FileMissing("<cause>".into()),
        FileNotRegular("<cause>".into()),
        FileTooLarge("<cause>".into()),
        FileOutsideDataDir,
        FileUnreadable("<cause>".into()),
    ];
    all.extend(
        [
            Peer::MainSession,
            Peer::InteractiveFork,
            Peer::BackgroundFork,
            Peer::PendingUpdates,
            Peer::PingBudget,
            Peer::SessionRecords,
        ]
        .map(ActorGone),
    );
    all
}

/// The non-test part of every source file of both crates (files of tests alone, `*_tests.rs`,
/// left out).
fn sources() -> Vec<(std::path::PathBuf, String)> {
    fn walk(dir: &std::path::Path, out: &mut Vec<(std::path::PathBuf, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs")
                && !path.to_string_lossy().ends_with("_tests.rs")
            {
                let text = std::fs::read_to_string(&path).unwrap();
                let code = text.split("#[cfg(test)]").next().unwrap_or_default();
                out.push((path, code.to_owned()));
            }
        }
    }
    let actors = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    walk(&actors.join("src"), &mut out);
    walk(&actors.join("../src"), &mut out);
    out
}

#[test]
fn every_refusal_sentence_is_written_once_and_only_here() {
    let sources = sources();
    for refusal in every_refusal() {
        let text = refusal.text();
        // The part before any filled-in cause.
        let key = text.split("<cause>").next().unwrap_or(&text);
        let places: Vec<_> = sources
            .iter()
            .filter(|(_, code)| code.contains(key))
            .map(|(path, code)| (path.display().to_string(), code.matches(key).count()))
            .collect();
        assert!(
            places.len() == 1 && places[0].1 == 1 && places[0].0.ends_with("replies.rs"),
            "{key:?} is written in {places:?}"
        );
    }
}

#[test]
fn quiet_hours_and_duplicates_say_when_and_point_to_report_updates() {
    let quiet = Refusal::QuietHours {
        until: "8:00 AM".into(),
    };
    assert_eq!(
        quiet.to_string(),
        "Quiet hours until 8:00 AM: nothing was sent. Use report_updates to pass findings to \
         the main session instead; set critical=True only if the user would be devastated to \
         miss this before then."
    );
    let again = Refusal::AlreadySentThis {
        sent_at: "9:00 AM".into(),
    };
    assert_eq!(
        again.to_string(),
        "Already sent this at 9:00 AM (the same message within the last 24 hours), so \
         nothing was sent. Use report_updates for anything new instead of repeating it."
    );
}

#[test]
fn follow_up_confirmation_names_the_minutes() {
    assert_eq!(
        Confirmation::FollowUpScheduled(45).to_string(),
        "Follow-up scheduled in 45 minutes"
    );
    assert_eq!(
        Confirmation::FollowUpScheduled(1).to_string(),
        "Follow-up scheduled in 1 minute"
    );
}
