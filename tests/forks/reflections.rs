//! Reflections after background forks (SPEC §17): the reflection model is Haiku with one tool,
//! `Write(reflections/**/*.md)`; the file holds our facts whatever the model does; `reflect:
//! false` and foreground runs get none.

use ollim_actors::records::runs::History;
use ollim_actors::scheduling::job_runner::Runs;
use serde_json::json;

use crate::rig::{bg_routine, call, prompt_block, rig, tool_result_text, Rig};
use crate::support::mock_model_api::{ModelRequest, Reply};

/// The reflection model's part done right: write the template it was given, to the file it was
/// told, with the placeholder replaced by `trace`.
fn write_the_trace(trace: &'static str) -> impl Fn(&ModelRequest) -> Reply + Send + Sync {
    move |req| {
        if !req.tool_results().is_empty() {
            return Reply::Text("Done.".into());
        }
        let prompt = req.latest_user_text();
        let path = prompt
            .lines()
            .find_map(|l| l.strip_prefix("File: "))
            .expect("the prompt names the file")
            .to_owned();
        let template = prompt
            .split_once("BEGIN FILE\n")
            .and_then(|(_, rest)| rest.split_once("END FILE"))
            .map(|(t, _)| t.to_owned())
            .expect("the prompt carries the template");
        call(
            "Write",
            json!({"file_path": path, "content": template.replace("TRACE_PLACEHOLDER", trace)}),
        )
    }
}

/// A job that reports once, then ends.
fn report_then_stop(req: &ModelRequest) -> Reply {
    if tool_result_text(req).contains("Update reported") {
        Reply::Text("done".into())
    } else if req.latest_user_text().contains("[routine-bg:") {
        call(
            "mcp__discord__report_updates",
            json!({"message": "Two tasks are overdue."}),
        )
    } else {
        Reply::Text("hello".into())
    }
}

/// The reflection files of `job`, as (file name, text).
fn reflections_of(rig: &Rig, job: &str) -> Vec<(String, String)> {
    let dir = rig.data.root().join("reflections").join(job);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<(String, String)> = entries
        .map(|e| e.unwrap().path())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

fn commit_subjects(rig: &Rig) -> String {
    let out = std::process::Command::new("git")
        .args(["log", "--format=%s"])
        .current_dir(rig.data.root())
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[actix_rt::test]
async fn a_background_run_gets_a_reflection_haiku_writes_with_its_one_scoped_tool() {
    let rig = rig(report_then_stop, |_| {}).await;
    rig.script_reflections(write_the_trace(
        "It was to review the day's tasks; it completed and reported two overdue ones.",
    ));
    rig.write(
        "routines/morning.md",
        &bg_routine(
            "aaaa1001",
            "1 9 * * *",
            "description: \"Morning check-in\"\n",
            "Look at today's tasks and tell me what is overdue.",
        ),
    );
    rig.registered(1).await;
    rig.advance_to(1);
    rig.settle().await;

    let asked = rig.reflection_requests();
    assert_eq!(asked.len(), 2, "the write, then its last word");
    let first = &asked[0];
    assert_eq!(first.tool_names(), vec!["Write".to_owned()]);
    let model = first.body["model"].as_str().unwrap_or_default();
    assert!(model.contains("haiku"), "model {model}");
    // Thinking is asked off (`--thinking disabled`); the CLI turns it back on for a Haiku
    // that refuses it, so the request is not checked for it.
    assert!(first.system_text().contains("execution traces"));
    assert!(!first.system_text().contains("You are a test assistant."));
    let prompt = prompt_block(first, "[reflection:");
    assert!(
        prompt.starts_with("[reflection:routine-bg:aaaa1001]"),
        "{prompt}"
    );
    assert!(prompt.contains("Description: Morning check-in"));
    assert!(prompt.contains("Look at today's tasks and tell me what is overdue."));
    let results = asked[1].tool_results();
    assert!(
        results.iter().all(|(_, _, is_error)| !is_error),
        "{results:?}"
    );

    let files = reflections_of(&rig, "aaaa1001");
    assert_eq!(files.len(), 1, "{files:?}");
    let (name, text) = &files[0];
    // The run closed at the clock's 14:01 UTC.
    assert_eq!(name, "2026-03-02T14-01-00Z.md");
    let run = &rig
        .handles
        .run_log
        .send(History {
            job: None,
            kind: None,
            limit: 10,
        })
        .await
        .unwrap()[0];
    for line in [
        "# Reflection: Morning check-in\n",
        "- **Job**: routine-bg:aaaa1001 (routines/morning.md)\n",
        &format!("- **Run**: {}, started ", run.run),
        "- **Status**: completed\n",
        "- **Report filed**: yes\n",
        "- **Pinged**: no\n",
        "- **Errors**: none\n",
        "- **Report**:\n  > Two tasks are overdue.\n",
        "**Trace**: It was to review the day's tasks; it completed and reported two overdue ones.\n",
        "_Reflection by haiku: $",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
    assert!(
        commit_subjects(&rig).contains("auto: write reflections/aaaa1001/2026-03-02T14-01-00Z.md"),
        "{}",
        commit_subjects(&rig)
    );
    let counts = rig.handles.job_runner.send(Runs).await.unwrap();
    assert_eq!((counts.reflections, counts.reflections_done), (1, 1));
}

#[actix_rt::test]
async fn the_reflection_model_cannot_write_outside_reflections() {
    let rig = rig(report_then_stop, |_| {}).await;
    let elsewhere = rig.data.root().join("routines/planted.md");
    let target = elsewhere.clone();
    rig.script_reflections(move |req| {
        if req.tool_results().is_empty() {
            call(
                "Write",
                json!({"file_path": target.display().to_string(), "content": "---\nid: x\n---\nhi\n"}),
            )
        } else {
            Reply::Text("Done.".into())
        }
    });
    rig.write(
        "routines/morning.md",
        &bg_routine("aaaa1002", "1 9 * * *", "", "Look at today's tasks."),
    );
    rig.registered(1).await;
    rig.advance_to(1);
    rig.settle().await;

    let asked = rig.reflection_requests();
    assert_eq!(asked.len(), 2);
    let results = asked[1].tool_results();
    assert!(
        results.iter().all(|(_, _, is_error)| *is_error),
        "{results:?}"
    );
    assert!(!elsewhere.exists());
    let files = reflections_of(&rig, "aaaa1002");
    assert_eq!(files.len(), 1);
    assert!(
        files[0]
            .1
            .contains("**Trace**: (none: the reflection could not be made — the reflection model wrote nothing)\n"),
        "{}",
        files[0].1
    );
}

#[actix_rt::test]
async fn a_failed_run_whose_reflection_model_fails_still_leaves_the_facts() {
    let rig = rig(
        |req| {
            if req.latest_user_text().contains("[routine-bg:") {
                Reply::ApiError {
                    status: 400,
                    kind: "invalid_request_error".into(),
                    message: "the job broke".into(),
                }
            } else {
                Reply::Text("hello".into())
            }
        },
        |_| {},
    )
    .await;
    rig.script_reflections(|_| Reply::ApiError {
        status: 400,
        kind: "invalid_request_error".into(),
        message: "no reflections today".into(),
    });
    rig.write(
        "routines/morning.md",
        &bg_routine("aaaa1003", "1 9 * * *", "", "Look at today's tasks."),
    );
    rig.registered(1).await;
    rig.advance_to(1);
    rig.settle().await;

    // The CLI may try the failing call more than once.
    assert!(!rig.reflection_requests().is_empty());
    let files = reflections_of(&rig, "aaaa1003");
    assert_eq!(files.len(), 1, "{files:?}");
    let text = &files[0].1;
    assert!(text.contains("- **Status**: failed: "), "{text}");
    assert!(text.contains("the job broke"), "{text}");
    assert!(text.contains("- **Report filed**: no\n"), "{text}");
    assert!(
        text.contains(
            "**Trace**: (none: the reflection could not be made — the reflection model failed: "
        ),
        "{text}"
    );
    assert!(text.contains("no reflections today"), "{text}");
}

#[actix_rt::test]
async fn reflect_false_asks_no_model_and_writes_no_file() {
    let rig = rig(report_then_stop, |_| {}).await;
    rig.script_reflections(write_the_trace("should never be written"));
    rig.write(
        "routines/quiet.md",
        &bg_routine("aaaa1004", "1 9 * * *", "reflect: false\n", "Look around."),
    );
    rig.registered(1).await;
    rig.advance_to(1);
    // Settled: the fork has ended, and a due reflection would be counted until written.
    rig.settle().await;

    assert!(!rig.requests_for("[routine-bg:aaaa1004]").is_empty());
    assert!(rig.reflection_requests().is_empty());
    assert!(!rig.data.root().join("reflections").exists());
    let counts = rig.handles.job_runner.send(Runs).await.unwrap();
    assert_eq!((counts.forks_finished, counts.reflections), (1, 0));
}

#[actix_rt::test]
async fn a_foreground_run_gets_no_reflection() {
    let rig = rig(|_| Reply::Text("Stretch now.".into()), |_| {}).await;
    rig.script_reflections(write_the_trace("should never be written"));
    rig.write(
        "routines/stretch.md",
        "---\nid: \"aaaa1005\"\ncron: \"1 9 * * *\"\n---\nRemind me to stretch.\n",
    );
    rig.registered(1).await;
    rig.advance_to(1);
    // The run is over once its line is in the history.
    let deadline = tokio::time::Instant::now() + crate::rig::LIMIT;
    loop {
        let lines = rig
            .handles
            .run_log
            .send(History {
                job: None,
                kind: None,
                limit: 10,
            })
            .await
            .unwrap();
        if !lines.is_empty() {
            assert_eq!(lines[0].tag, "routine", "{lines:?}");
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the run never ended"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(rig.reflection_requests().is_empty());
    assert!(!rig.data.root().join("reflections").exists());
    let counts = rig.handles.job_runner.send(Runs).await.unwrap();
    assert_eq!((counts.handed, counts.reflections), (1, 0));
}
