use super::*;

fn at(text: &str) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(text).unwrap()
}

#[test]
fn run_at_accepts_python_isoformat_variants() {
    let want = at("2026-02-24T14:00:00-08:00");
    for raw in [
        "2026-02-24T14:00:00-08:00",
        "2026-02-24 14:00:00-08:00",
        "2026-02-24T14:00-08:00",
        "2026-02-24T14:00:00-0800",
        "2026-02-24T22:00:00Z",
        "2026-02-24T22:00:00+00:00",
    ] {
        assert_eq!(parse_run_at(raw).unwrap(), want, "{raw}");
    }
    let fine = parse_run_at("2026-02-24T14:00:00.123456-08:00").unwrap();
    assert_eq!(fine.nanosecond(), 123_456_000);
}

#[test]
fn run_at_without_offset_is_its_own_error() {
    let err = parse_run_at("2026-02-24T14:00:00").unwrap_err();
    assert!(matches!(err, ParseError::RunAtWithoutOffset { .. }));
    assert!(matches!(
        parse_run_at("tomorrow at 3"),
        Err(ParseError::BadRunAt { .. })
    ));
}

#[test]
fn run_at_without_offset_reads_in_zone_when_asked() {
    let zone: Tz = "America/Los_Angeles".parse().unwrap();
    let got = parse_run_at_in("2026-02-24T14:00", zone).unwrap();
    assert_eq!(got, at("2026-02-24T14:00:00-08:00"));
    let gap = parse_run_at_in("2026-03-08T02:30:00", zone);
    assert!(matches!(gap, Err(ParseError::BadRunAt { .. })));
}

#[test]
fn format_matches_python_isoformat() {
    assert_eq!(
        format_run_at(at("2026-02-24T14:00:00-08:00")),
        "2026-02-24T14:00:00-08:00"
    );
    assert_eq!(
        format_run_at(at("2026-02-24T14:00:00.5+00:00")),
        "2026-02-24T14:00:00.500000+00:00"
    );
}

#[test]
fn chain_depth_past_max_is_rejected() {
    let err = parse(
        "---\nid: x\nrun-at: \"2026-02-24T14:00:00-08:00\"\nchain-depth: 3\nmax-chain: 2\n---\nb\n",
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "`chain-depth` 3 is greater than `max-chain` 2"
    );
}

#[test]
fn chain_root_names_itself_and_follow_ups_inherit() {
    let root = Reminder::new_chain(
        "check",
        at("2026-02-24T14:00:00.123456789-08:00"),
        2,
        JobSettings {
            background: true,
            ..JobSettings::default()
        },
    );
    assert_eq!(root.chain_parent.as_deref(), Some(root.id.as_str()));
    assert_eq!(root.run_at_raw, "2026-02-24T14:00:00.123456-08:00");
    assert_eq!(parse_run_at(&root.run_at_raw).unwrap(), root.run_at);
    let first = root.follow_up(at("2026-02-24T15:00:00-08:00")).unwrap();
    assert_eq!(
        (first.chain_depth, first.chain_parent.as_deref()),
        (1, Some(root.id.as_str()))
    );
    assert_eq!(first.settings, root.settings);
    let last = first.follow_up(at("2026-02-24T16:00:00-08:00")).unwrap();
    assert!(last.follow_up(at("2026-02-24T17:00:00-08:00")).is_none());
}

#[test]
fn plain_reminder_has_no_chain_parent_and_cannot_follow_up() {
    let r = Reminder::new("x", at("2026-02-24T14:00:00-08:00"), JobSettings::default());
    assert_eq!(r.chain_parent, None);
    assert!(r.follow_up(at("2026-02-24T15:00:00-08:00")).is_none());
    assert_eq!(
        to_markdown(&r),
        format!(
            "---\nid: \"{}\"\nrun-at: \"2026-02-24T14:00:00-08:00\"\nbackground: false\n---\nx\n",
            r.id
        ),
        "a foreground reminder says so: reminders run in the background by default"
    );
}

#[test]
fn reminders_run_in_the_background_unless_they_say_otherwise() {
    let bare = parse("---\nid: x\nrun-at: \"2026-02-24T14:00:00-08:00\"\n---\nb\n").unwrap();
    assert!(
        bare.settings.background,
        "no `background` key: background (SPEC §17)"
    );
    assert!(bare.settings.reflect);
    assert_eq!(
        to_markdown(&bare),
        "---\nid: \"x\"\nrun-at: \"2026-02-24T14:00:00-08:00\"\n---\nb\n",
        "the default is not written"
    );
    let fg = parse(
        "---\nid: x\nrun-at: \"2026-02-24T14:00:00-08:00\"\nbackground: false\nreflect: false\nsubagent: \"gmail-reader\"\n---\nb\n",
    )
    .unwrap();
    assert!(!fg.settings.background);
    assert!(!fg.settings.reflect);
    assert_eq!(fg.settings.subagent.as_deref(), Some("gmail-reader"));
    assert_eq!(
        to_markdown(&fg),
        "---\nid: \"x\"\nrun-at: \"2026-02-24T14:00:00-08:00\"\nbackground: false\nreflect: false\nsubagent: \"gmail-reader\"\n---\nb\n"
    );
    let bad =
        parse("---\nid: x\nrun-at: \"2026-02-24T14:00:00-08:00\"\nsubagent: \"../x\"\n---\nb\n")
            .unwrap_err();
    assert!(bad.to_string().contains("`subagent`"), "{bad}");
}
