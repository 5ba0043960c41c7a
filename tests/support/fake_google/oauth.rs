//! Google's OAuth endpoints, as strict as Google is about what the installed-app flow sends:
//! the consent page (`/o/oauth2/auth`, answered as if the user clicked "Allow") and the token
//! endpoint (`/token`: the code with its PKCE verifier and redirect URI, or a refresh token).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::json;
use sha2::{Digest, Sha256};

use super::http::{param, Reply};
use super::state::{Code, Request, State};
use super::{CLIENT_ID, CLIENT_SECRET};

/// What a consent must ask for: the original's three and the calendar list `cal calendars`
/// reads.
const SCOPES: [&str; 4] = [
    "https://www.googleapis.com/auth/tasks",
    "https://www.googleapis.com/auth/calendar.events",
    "https://www.googleapis.com/auth/gmail.readonly",
    "https://www.googleapis.com/auth/calendar.calendarlist.readonly",
];

fn bad_request(what: &str) -> Reply {
    Reply::Text(400, format!("Error 400: invalid_request ({what})"))
}

/// The consent page: checks the request and redirects back with a code.
pub fn consent_page(state: &mut State, r: &Request) -> Reply {
    let get = |k: &str| param(r, k).unwrap_or_default();
    if get("client_id") != CLIENT_ID {
        return Reply::Text(401, "Error 401: invalid_client".into());
    }
    let redirect = get("redirect_uri");
    if !(redirect.starts_with("http://127.0.0.1:") || redirect.starts_with("http://localhost:")) {
        return bad_request("redirect_uri must be a loopback address");
    }
    if get("response_type") != "code" {
        return bad_request("response_type");
    }
    if get("code_challenge_method") != "S256" || get("code_challenge").len() < 43 {
        return bad_request("PKCE S256 challenge");
    }
    if get("access_type") != "offline" {
        return bad_request("access_type=offline");
    }
    let scope = get("scope");
    if !SCOPES.iter().all(|s| scope.split(' ').any(|x| x == *s)) {
        return bad_request("scope");
    }
    let n = state.next();
    let code = format!("4/0fake-code-{n}");
    state.codes.insert(
        code.clone(),
        Code {
            challenge: get("code_challenge"),
            redirect_uri: redirect.clone(),
        },
    );
    let query: String = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("state", &get("state"))
        .append_pair("code", &code)
        .append_pair("scope", &scope)
        .finish();
    Reply::Redirect(format!("{redirect}/?{query}"))
}

fn oauth_error(status: u16, error: &str, description: &str) -> Reply {
    Reply::Json(
        status,
        json!({"error": error, "error_description": description}),
    )
}

/// The client's id and secret: in the body, or HTTP Basic.
fn client_ok(r: &Request) -> bool {
    let form = r.form();
    if let (Some(id), Some(secret)) = (form.get("client_id"), form.get("client_secret")) {
        return id == CLIENT_ID && secret == CLIENT_SECRET;
    }
    let Some(basic) = r
        .authorization
        .as_deref()
        .and_then(|a| a.strip_prefix("Basic "))
    else {
        return false;
    };
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(basic)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_default();
    decoded == format!("{CLIENT_ID}:{CLIENT_SECRET}")
}

fn granted(access: &str, refresh: Option<&str>) -> Reply {
    let mut body = json!({
        "access_token": access,
        "expires_in": 3599,
        "scope": SCOPES.join(" "),
        "token_type": "Bearer",
    });
    if let Some(r) = refresh {
        body["refresh_token"] = json!(r);
    }
    Reply::Json(200, body)
}

/// The token endpoint.
pub fn token(state: &mut State, r: &Request) -> Reply {
    if !client_ok(r) {
        return oauth_error(401, "invalid_client", "Unauthorized");
    }
    let form = r.form();
    let field = |k: &str| form.get(k).cloned().unwrap_or_default();
    match field("grant_type").as_str() {
        "authorization_code" => {
            let Some(code) = state.codes.remove(&field("code")) else {
                return oauth_error(400, "invalid_grant", "Malformed auth code.");
            };
            if field("redirect_uri") != code.redirect_uri {
                return oauth_error(400, "redirect_uri_mismatch", "Bad Request");
            }
            let proof = URL_SAFE_NO_PAD.encode(Sha256::digest(field("code_verifier").as_bytes()));
            if proof != code.challenge {
                return oauth_error(400, "invalid_grant", "Invalid code verifier.");
            }
            let (access, refresh) = state.issue(true);
            granted(&access, Some(&refresh))
        }
        "refresh_token" => {
            let refresh = field("refresh_token");
            if !state.refresh.contains(&refresh) || state.revoked.contains(&refresh) {
                return oauth_error(400, "invalid_grant", "Token has been expired or revoked.");
            }
            let (access, _) = state.issue(false);
            granted(&access, None)
        }
        other => oauth_error(
            400,
            "unsupported_grant_type",
            &format!("Invalid grant_type: {other}"),
        ),
    }
}
