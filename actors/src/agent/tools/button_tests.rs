use super::*;

#[test]
fn every_action_form_parses_and_prints_back() {
    for (text, expected) in [
        ("task_done:abc", ButtonAction::TaskDone("abc".into())),
        ("task_del:t-1", ButtonAction::TaskDel("t-1".into())),
        ("event_del:ev_9", ButtonAction::EventDel("ev_9".into())),
        (
            "agent:tell me more: now",
            ButtonAction::Agent("tell me more: now".into()),
        ),
        ("dismiss", ButtonAction::Dismiss),
    ] {
        let parsed = ButtonAction::parse(text).unwrap();
        assert_eq!(parsed, expected, "{text}");
        assert_eq!(parsed.to_string(), text);
    }
}

#[test]
fn snooze_buttons_round_trip_and_agents_cannot_make_them() {
    for choice in SnoozeChoice::ALL {
        let click = ButtonClick::Snooze {
            choice,
            id: "a1b2c3d4".into(),
        };
        let id = click.custom_id();
        assert!(
            id.starts_with("act:snooze_") && id.ends_with(":a1b2c3d4"),
            "{id}"
        );
        assert_eq!(ButtonClick::parse(&id), Some(click));
    }
    assert_eq!(ButtonClick::parse("act:snooze_2h:a1b2c3d4"), None);
    assert!(ButtonAction::parse("snooze_15m:a1b2c3d4").is_err());
}

#[test]
fn unknown_or_empty_actions_are_refused() {
    assert_eq!(
        ButtonAction::parse("snooze:1"),
        Err(ActionError::Unknown("snooze:1".into()))
    );
    assert_eq!(
        ButtonAction::parse("open"),
        Err(ActionError::Unknown("open".into()))
    );
    assert_eq!(
        ButtonAction::parse("task_done:"),
        Err(ActionError::Empty("task_done:".into()))
    );
    assert_eq!(
        ButtonAction::parse("agent:  "),
        Err(ActionError::Empty("agent:  ".into()))
    );
}

#[test]
fn ids_too_long_for_a_custom_id_are_refused_but_long_prompts_are_not() {
    let long = "x".repeat(90);
    assert!(matches!(
        ButtonAction::parse(&format!("task_done:{long}")),
        Err(ActionError::TooLong(_))
    ));
    let prompt = "y".repeat(500);
    assert_eq!(
        ButtonAction::parse(&format!("agent:{prompt}")),
        Ok(ButtonAction::Agent(prompt))
    );
}

#[test]
fn custom_ids_use_the_original_scheme() {
    assert_eq!(
        ButtonAction::TaskDone("abc".into()).custom_id(None),
        "act:task_done:abc"
    );
    assert_eq!(
        ButtonAction::EventDel("e1".into()).custom_id(None),
        "act:event_del:e1"
    );
    assert_eq!(ButtonAction::Dismiss.custom_id(None), "act:dismiss:_");
    assert_eq!(
        ButtonAction::Agent("do it".into()).custom_id(Some("1a2b3c4d")),
        "act:agent:1a2b3c4d"
    );
    assert_eq!(
        ButtonAction::Agent("do it".into()).custom_id(None),
        "act:agent:_"
    );
}

#[test]
fn custom_ids_parse_back_to_the_click() {
    for action in [
        ButtonAction::TaskDone("abc".into()),
        ButtonAction::TaskDel("t:with:colons".into()),
        ButtonAction::EventDel("e1".into()),
        ButtonAction::Dismiss,
    ] {
        let click = ButtonAction::parse_custom_id(&action.custom_id(None)).unwrap();
        assert_eq!(click.custom_id(), action.custom_id(None));
    }
    assert_eq!(
        ButtonClick::parse("act:agent:1a2b3c4d"),
        Some(ButtonClick::Agent {
            inquiry_id: "1a2b3c4d".into()
        })
    );
    assert_eq!(
        ButtonClick::parse("act:task_del:t:with:colons"),
        Some(ButtonClick::TaskDel("t:with:colons".into()))
    );
}

#[test]
fn fork_entry_buttons_round_trip() {
    for click in [
        ButtonClick::ForkSave,
        ButtonClick::ForkReport,
        ButtonClick::ForkExit,
        ButtonClick::ForkConfirmSave,
    ] {
        assert_eq!(ButtonClick::parse(&click.custom_id()), Some(click.clone()));
    }
    assert_eq!(ButtonClick::ForkSave.custom_id(), "act:fork_save:_");
    assert_eq!(
        ButtonClick::ForkConfirmSave.custom_id(),
        "act:fork_confirm_save:_"
    );
}

#[test]
fn foreign_custom_ids_are_not_ours() {
    for id in [
        "",
        "act:",
        "act:task_done:",
        "act:launch:x",
        "btn:task_done:x",
        "act:task_done",
    ] {
        assert_eq!(ButtonClick::parse(id), None, "{id:?}");
    }
}

#[test]
fn styles_parse_their_spelling_only() {
    for style in [
        ButtonStyle::Primary,
        ButtonStyle::Secondary,
        ButtonStyle::Success,
        ButtonStyle::Danger,
    ] {
        assert_eq!(ButtonStyle::parse(style.as_str()), Some(style));
    }
    assert_eq!(ButtonStyle::parse("blurple"), None);
    assert_eq!(ButtonStyle::default(), ButtonStyle::Secondary);
}
