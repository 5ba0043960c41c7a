//! Tests of [`super`] (policy.rs).

use super::*;
use serde_json::json;

const ROOT: &str = "/home/u/.ollim-bot";

fn request(tool: &str, input: Value) -> PermissionRequest {
    PermissionRequest {
        tool_name: tool.into(),
        input: input.clone(),
        tool_use_id: Some("toolu_1".into()),
        raw: json!({"tool_name": tool, "input": input}),
    }
}

fn data() -> DataDir {
    DataDir::new(ROOT)
}

/// One call of each kind the table below covers.
fn kinds() -> [(&'static str, PermissionRequest); 4] {
    [
        ("edit", request("Write", json!({"file_path": "notes/x.md"}))),
        ("bash", request("Bash", json!({"command": "rm x"}))),
        ("mcp", request("mcp__docs__search", json!({"q": "x"}))),
        ("read", request("Read", json!({"file_path": "/etc/hosts"}))),
    ]
}

/// "allow", "deny" or "ask" for the decision.
fn verdict(d: &Decision) -> &'static str {
    match d {
        Decision::Allow => "allow",
        Decision::Deny { .. } => "deny",
        Decision::Ask { .. } => "ask",
    }
}

#[test]
fn every_mode_against_every_tool_kind() {
    use PermissionMode::*;
    let table = [
        (DontAsk, ["deny", "deny", "deny", "deny"]),
        (Default, ["ask", "ask", "ask", "ask"]),
        (Plan, ["ask", "ask", "ask", "ask"]),
        (AcceptEdits, ["allow", "ask", "ask", "ask"]),
        (BypassPermissions, ["allow", "allow", "allow", "allow"]),
    ];
    for (mode, want) in table {
        let policy = Policy::new(mode);
        for ((kind, req), want) in kinds().iter().zip(want) {
            let got = policy.decide(req, &data());
            assert_eq!(verdict(&got), want, "{mode} / {kind}");
        }
    }
}

#[test]
fn accept_edits_asks_about_files_that_run_unattended() {
    let policy = Policy::new(PermissionMode::AcceptEdits);
    for file in [
        "routines/x.md",
        "reminders/r.md",
        "webhooks/w.md",
        "skills/s/SKILL.md",
    ] {
        let req = request(
            "Write",
            json!({"file_path": file, "content": "gate: \"curl x\""}),
        );
        assert_eq!(verdict(&policy.decide(&req, &data())), "ask", "{file}");
    }
}

#[test]
fn writes_into_state_are_denied_in_every_mode() {
    use PermissionMode::*;
    let targets = [
        json!({"file_path": "state/ping_budget.json"}),
        json!({"file_path": "/home/u/.ollim-bot/state/sessions.json"}),
        json!({"file_path": "routines/../state/x.json"}),
        json!({"file_path": "/home/u/.ollim-bot/routines/../state/x"}),
        json!({"notebook_path": "state/n.ipynb"}),
    ];
    for mode in [DontAsk, Default, Plan, AcceptEdits, BypassPermissions] {
        let mut policy = Policy::new(mode);
        policy.allow_for_session("Write");
        policy.allow_for_session("Edit");
        policy.allow_for_session("NotebookEdit");
        for (tool, input) in [("Write", &targets[0]), ("Edit", &targets[1])]
            .into_iter()
            .chain(targets[2..4].iter().map(|t| ("Write", t)))
            .chain([("NotebookEdit", &targets[4])])
        {
            let got = policy.decide(&request(tool, input.clone()), &data());
            let Decision::Deny { message, .. } = got else {
                panic!("{mode}: {tool} {input} was not denied: {got:?}");
            };
            assert!(message.contains("state/"), "{message}");
        }
    }
}

#[test]
fn reading_state_is_not_a_write() {
    let policy = Policy::new(PermissionMode::BypassPermissions);
    let got = policy.decide(
        &request("Read", json!({"file_path": "state/x.json"})),
        &data(),
    );
    assert_eq!(got, Decision::Allow);
}

#[test]
fn session_allowed_tools_run_without_asking() {
    let mut policy = Policy::new(PermissionMode::Default);
    let bash = request("Bash", json!({"command": "ls"}));
    assert_eq!(verdict(&policy.decide(&bash, &data())), "ask");
    policy.allow_for_session("Bash");
    assert_eq!(policy.decide(&bash, &data()), Decision::Allow);
    policy.forget_session();
    assert_eq!(verdict(&policy.decide(&bash, &data())), "ask");
}

#[test]
fn dont_ask_still_honours_session_allowed_tools() {
    let mut policy = Policy::new(PermissionMode::DontAsk);
    policy.allow_for_session("Bash");
    let got = policy.decide(&request("Bash", json!({"command": "ls"})), &data());
    assert_eq!(got, Decision::Allow);
}

#[test]
fn standing_patterns_run_without_asking_in_every_mode_but_never_into_state() {
    for mode in [PermissionMode::DontAsk, PermissionMode::Default] {
        let mut policy = Policy::new(mode);
        let status = request("Bash", json!({"command": "git status"}));
        let other = request("Bash", json!({"command": "git push"}));
        assert_ne!(policy.decide(&status, &data()), Decision::Allow);
        policy.set_standing(vec!["Bash(git status)".into(), "Write(**)".into()]);
        assert_eq!(policy.decide(&status, &data()), Decision::Allow);
        assert_ne!(policy.decide(&other, &data()), Decision::Allow);
        let state = request("Write", json!({"file_path": "state/ping_budget.json"}));
        assert_eq!(verdict(&policy.decide(&state, &data())), "deny");
        policy.set_standing(Vec::new());
        assert_ne!(policy.decide(&status, &data()), Decision::Allow);
    }
}

#[test]
fn background_never_asks() {
    use PermissionMode::*;
    for mode in [Default, Plan, AcceptEdits, DontAsk] {
        let mut policy = Policy::background();
        policy.mode = mode;
        assert!(!policy.asks());
        for (kind, req) in kinds() {
            let got = policy.decide(&req, &data());
            assert_ne!(verdict(&got), "ask", "{mode} / {kind}");
        }
    }
    let got = Policy::background().decide(&request("Bash", json!({"command": "rm x"})), &data());
    assert_eq!(
        got,
        Decision::Deny {
            label: "Bash(rm x)".into(),
            message: "Bash needs permission, and the current mode (dontAsk) refuses without asking"
                .into(),
            reason: reasons::BACKGROUND.into(),
        }
    );
    // The conversation's own refusal tells the owner how to be asked instead.
    let Decision::Deny { reason, .. } =
        Policy::new(DontAsk).decide(&request("Bash", json!({"command": "rm x"})), &data())
    else {
        panic!("dontAsk asked");
    };
    assert_eq!(reason, reasons::DONT_ASK);
    assert!(
        reason.contains("/permissions") && reason.contains("ask first"),
        "{reason}"
    );
    let mut default_bg = Policy::background();
    default_bg.mode = Default;
    let Decision::Deny { message, .. } =
        default_bg.decide(&request("Bash", json!({"command": "rm x"})), &data())
    else {
        panic!("background asked");
    };
    assert_eq!(message, "Bash is not available in background forks");
}

#[test]
fn denials_and_questions_carry_the_label() {
    let req = request(
        "Write",
        json!({"file_path": "/home/u/.ollim-bot/reminders/foo.md"}),
    );
    assert_eq!(
        Policy::new(PermissionMode::Default).decide(&req, &data()),
        Decision::Ask {
            label: "Write(reminders/foo.md)".into()
        }
    );
    let Decision::Deny { label, .. } = Policy::new(PermissionMode::DontAsk).decide(&req, &data())
    else {
        panic!("dontAsk did not deny");
    };
    assert_eq!(label, "Write(reminders/foo.md)");
}

#[test]
fn settling_an_answer() {
    let mut policy = Policy::new(PermissionMode::Default);
    let req = request("Bash", json!({"command": "ls"}));
    assert_eq!(
        policy.settle(&req, ApprovalAnswer::Allow, &data()),
        Decision::Allow
    );
    assert!(policy.session_allowed.is_empty());
    assert_eq!(
        verdict(&policy.settle(&req, ApprovalAnswer::Deny, &data())),
        "deny"
    );
    assert_eq!(
        policy.settle(&req, ApprovalAnswer::AllowForSession, &data()),
        Decision::Allow
    );
    assert_eq!(policy.decide(&req, &data()), Decision::Allow);
}

#[test]
fn decisions_become_cli_answers() {
    let input = json!({"command": "ls"});
    assert_eq!(
        Decision::Allow.to_permission_decision(&input),
        Some(PermissionDecision::Allow {
            updated_input: input.clone()
        })
    );
    let deny = Decision::Deny {
        label: "Bash(ls)".into(),
        message: "no".into(),
        reason: reasons::NOT_APPROVED.into(),
    };
    assert_eq!(
        deny.to_permission_decision(&input),
        Some(PermissionDecision::Deny {
            message: "no".into()
        })
    );
    let ask = Decision::Ask {
        label: "Bash(ls)".into(),
    };
    assert_eq!(ask.to_permission_decision(&input), None);
}

#[test]
fn state_write_denial_ignores_other_tools_and_paths() {
    let d = data();
    assert!(state_write_denial("Bash", &json!({"file_path": "state/x"}), &d).is_none());
    assert!(state_write_denial("Write", &json!({"file_path": "routines/x.md"}), &d).is_none());
    assert!(state_write_denial("Write", &json!({}), &d).is_none());
    assert!(state_write_denial("MultiEdit", &json!({"file_path": "state/x"}), &d).is_some());
}

#[test]
fn accept_edits_asks_about_edits_that_leave_the_data_directory() {
    let policy = Policy::new(PermissionMode::AcceptEdits);
    for file in [
        "/home/u/.ssh/authorized_keys",
        "/home/u/.bashrc",
        ".claude/settings.json",
    ] {
        let req = request("Write", json!({ "file_path": file }));
        assert_eq!(verdict(&policy.decide(&req, &data())), "ask", "{file}");
    }
    let home = request(
        "Edit",
        json!({"file_path": "/home/u/.ollim-bot/notes/todo.txt"}),
    );
    assert_eq!(verdict(&policy.decide(&home, &data())), "allow");
}

#[test]
fn bash_that_may_write_into_state_is_asked_whatever_was_allowed_before() {
    use PermissionMode::*;
    let touch = request("Bash", json!({"command": "touch state/x"}));
    let why = "it names state/";
    for mode in [Default, Plan, AcceptEdits, BypassPermissions] {
        let mut policy = Policy::new(mode);
        policy.allow_for_session("Bash");
        let got = policy.decide_state_write(&touch, why, &data());
        assert_eq!(verdict(&got), "ask", "{mode}");
        let Decision::Ask { label } = got else {
            unreachable!()
        };
        assert!(label.contains("may write into state/"), "{label}");
    }
    let mut dont_ask = Policy::new(DontAsk);
    dont_ask.allow_for_session("Bash");
    assert_eq!(
        verdict(&dont_ask.decide_state_write(&touch, why, &data())),
        "deny"
    );
    assert_eq!(
        verdict(&Policy::background().decide_state_write(&touch, why, &data())),
        "deny"
    );
    let list = request("Bash", json!({"command": "ollim-bot reminder list"}));
    let mut unlocked = Policy::new(Default);
    unlocked.allow_for_session("Bash");
    assert_eq!(verdict(&unlocked.decide(&list, &data())), "allow");
}

#[test]
fn the_conversation_writes_its_memory_without_a_question_in_every_mode() {
    use PermissionMode::*;
    for mode in [DontAsk, Default, Plan, AcceptEdits, BypassPermissions] {
        let policy = Policy::new(mode);
        for tool in ["Write", "Edit", "MultiEdit"] {
            let req = request(tool, json!({"file_path": "context.md"}));
            assert_eq!(
                verdict(&policy.decide(&req, &data())),
                "allow",
                "{mode} / {tool}"
            );
        }
        let elsewhere = request("Write", json!({"file_path": "notes/context.md"}));
        let got = verdict(&policy.decide(&elsewhere, &data()));
        assert!(
            mode == BypassPermissions || mode == AcceptEdits || got != "allow",
            "{mode}"
        );
    }
    let background = Policy::background();
    let req = request("Write", json!({"file_path": "context.md"}));
    assert_ne!(verdict(&background.decide(&req, &data())), "allow");
}
