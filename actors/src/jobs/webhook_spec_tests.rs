use super::*;

const GITHUB_CI: &str = "---\nid: \"github-ci\"\nisolated: true\nmodel: \"haiku\"\nfields:\n  type: object\n  required: [repo, status]\n  properties:\n    repo:\n      type: string\n      maxLength: 200\n    status:\n      type: string\n      enum: [success, failure]\n---\nCI for {repo}: {status}.\n";

#[test]
fn reads_schema_settings_and_template() {
    let spec = parse(GITHUB_CI).unwrap();
    assert_eq!(spec.id, "github-ci");
    assert!(spec.isolated && spec.thinking && spec.allow_ping);
    assert_eq!(spec.model, Some(ModelChoice::Haiku));
    assert_eq!(spec.fields["properties"]["repo"]["maxLength"], 200);
    assert_eq!(
        spec.fields["required"],
        serde_json::json!(["repo", "status"])
    );
    assert_eq!(spec.template, "CI for {repo}: {status}.");
}

#[test]
fn fields_must_be_present_and_a_mapping() {
    let missing = parse("---\nid: \"x\"\n---\nt\n").unwrap_err();
    assert_eq!(missing.to_string(), "missing required field `fields`");
    let scalar = parse("---\nid: \"x\"\nfields: 3\n---\nt\n").unwrap_err();
    assert!(matches!(scalar, ParseError::BadWebhookFields { .. }));
}

#[test]
fn written_spec_reads_back_equal() {
    let spec = parse(GITHUB_CI).unwrap();
    let text = to_markdown(&spec);
    assert!(
        text.starts_with("---\nid: \"github-ci\"\nfields:\n  "),
        "{text}"
    );
    assert_eq!(parse(&text).unwrap(), spec);
}

#[test]
fn schema_yaml_quotes_strings_and_nests_lists() {
    let schema = serde_json::json!({
        "type": "object",
        "on": {"enum": ["yes", 1, null, true]},
        "anyOf": [{"required": ["a"], "type": "object"}, [1, 2], {}],
        "required": []
    });
    let yaml = schema_yaml(&schema);
    assert_eq!(
        yaml,
        "anyOf:\n  - required:\n      - \"a\"\n    type: \"object\"\n  - - 1\n    - 2\n  - {}\n\"on\":\n  enum:\n    - \"yes\"\n    - 1\n    - null\n    - true\nrequired: []\ntype: \"object\"\n"
    );
    let back: Value = serde_yaml::from_str(&yaml).unwrap();
    assert_eq!(back, schema);
}

#[test]
fn declared_fields_are_the_schema_properties() {
    let spec = parse(GITHUB_CI).unwrap();
    assert_eq!(spec.declared_fields(), ["repo", "status"]);
    assert!(spec.declares("repo") && !spec.declares("type") && !spec.declares("required"));
    let bare = parse("---\nid: \"x\"\nfields:\n  type: object\n---\nt\n").unwrap();
    assert!(bare.declared_fields().is_empty());
}

#[test]
fn file_is_named_by_id() {
    let spec = parse(GITHUB_CI).unwrap();
    assert_eq!(Item::file_stem(&spec), "github-ci");
}

#[test]
fn signed_auth_and_rate_limit_read_back_from_a_written_spec() {
    // A variable every test process has: a signed scheme's secret must be set when read.
    let text = GITHUB_CI.replace(
        "isolated: true\n",
        "isolated: true\nauth: github\nsecret-env: PATH\nrate-limit: 5\n",
    );
    let spec = parse(&text).unwrap();
    assert_eq!(
        spec.auth,
        HookAuth::GitHub {
            secret_env: "PATH".into()
        }
    );
    assert_eq!(spec.rate_limit, 5);
    let written = to_markdown(&spec);
    assert!(
        written.contains("auth: \"github\"\nsecret-env: \"PATH\"\nrate-limit: 5\n"),
        "{written}"
    );
    assert_eq!(parse(&written).unwrap(), spec);
    assert_eq!(parse(GITHUB_CI).unwrap().rate_limit, DEFAULT_RATE_LIMIT);
}

#[test]
fn unusable_auth_keys_are_load_errors_that_say_what_to_fix() {
    let with = |keys: &str| parse(&GITHUB_CI.replace("isolated: true\n", keys)).unwrap_err();
    assert!(with("auth: hmac\n")
        .to_string()
        .contains("`auth` \"hmac\" is not one of bearer, standard, github"));
    assert!(with("auth: standard\n")
        .to_string()
        .contains("`auth: standard` needs `secret-env`"));
    assert_eq!(
        with("auth: github\nsecret-env: OLLIM_TEST_UNSET_HOOK_SECRET\n").to_string(),
        "`secret-env` OLLIM_TEST_UNSET_HOOK_SECRET is not set in the bot's environment"
    );
    assert!(with("rate-limit: 0\n").to_string().contains("at least 1"));
}
