use super::*;

const KEY: &[u8] = b"It's a Secret to Everybody";

fn hmac_b64(key: &[u8], msg: &[u8]) -> String {
    BASE64.encode(hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, key), msg).as_ref())
}

fn env_with(name: &'static str, value: &'static str) -> impl Fn(&str) -> Option<String> {
    move |n| (n == name).then(|| value.to_owned())
}

#[test]
fn github_signature_from_its_documentation_is_accepted() {
    // GitHub's documented example: secret "It's a Secret to Everybody", body "Hello, World!".
    let sig = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
    let headers = Signed {
        id: Some("d1"),
        timestamp: None,
        signature: Some(sig),
    };
    assert_eq!(verify_github(KEY, &headers, b"Hello, World!"), Ok("d1"));
    assert_eq!(
        verify_github(KEY, &headers, b"Hello, World?"),
        Err(SignatureError::Mismatch)
    );
    let no_id = Signed {
        id: None,
        ..headers
    };
    assert_eq!(
        verify_github(KEY, &no_id, b"Hello, World!"),
        Err(SignatureError::Missing("X-GitHub-Delivery"))
    );
}

#[test]
fn standard_signature_is_checked_with_its_timestamp() {
    let body = br#"{"a":1}"#;
    let sig = format!("v1,{}", hmac_b64(KEY, b"msg_1.1000.{\"a\":1}"));
    let signatures = format!("v1,bm90IGl0 {sig}");
    let headers = Signed {
        id: Some("msg_1"),
        timestamp: Some("1000"),
        signature: Some(&signatures),
    };
    assert_eq!(
        verify_standard(KEY, &headers, body, 1000 + 300),
        Ok("msg_1")
    );
    assert_eq!(
        verify_standard(KEY, &headers, body, 1000 + 360),
        Err(SignatureError::Stale)
    );
    assert_eq!(
        verify_standard(b"other", &headers, body, 1000),
        Err(SignatureError::Mismatch)
    );
}

#[test]
fn auth_keys_are_checked_when_the_spec_is_read() {
    let none = |_: &str| None;
    assert_eq!(parse_auth(None, None, &none), Ok(HookAuth::Bearer));
    let unknown = parse_auth(Some("hmac"), None, &none).unwrap_err();
    assert!(
        unknown.contains("is not one of bearer, standard, github"),
        "{unknown}"
    );
    let missing = parse_auth(Some("github"), None, &none).unwrap_err();
    assert!(missing.contains("needs `secret-env`"), "{missing}");
    let unset = parse_auth(Some("github"), Some("GH_SECRET"), &none).unwrap_err();
    assert_eq!(
        unset,
        "`secret-env` GH_SECRET is not set in the bot's environment"
    );
    assert_eq!(
        parse_auth(
            Some("github"),
            Some("GH_SECRET"),
            &env_with("GH_SECRET", "s")
        ),
        Ok(HookAuth::GitHub {
            secret_env: "GH_SECRET".into()
        })
    );
    let not_whsec = parse_auth(Some("standard"), Some("SW"), &env_with("SW", "plain")).unwrap_err();
    assert!(
        not_whsec.contains("not a Standard Webhooks secret"),
        "{not_whsec}"
    );
    let standard = parse_auth(
        Some("standard"),
        Some("SW"),
        &env_with("SW", "whsec_c2VjcmV0"),
    );
    assert!(standard.is_ok(), "{standard:?}");
    assert_eq!(
        secret(&standard.unwrap(), &env_with("SW", "whsec_c2VjcmV0")),
        Ok(b"secret".to_vec())
    );
    let stray = parse_auth(None, Some("X"), &none).unwrap_err();
    assert!(stray.contains("bearer hook uses WEBHOOK_SECRET"), "{stray}");
}
