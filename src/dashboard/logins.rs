//! Who may see the dashboard (SPEC §21): the one-time login tokens `ollim-bot dashboard` and
//! `/dashboard` hand out (valid ten minutes, used once) and the sessions they open (a cookie id
//! and the CSRF token every form carries). The actor owns both tables; the server asks it.
//!
//! Tokens and session ids are 256 random bits from the operating system, so a guess never
//! lands. Expired entries are dropped whenever the actor is asked anything.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use actix::prelude::*;
use base64::Engine as _;
use ollim_actors::bot::control_socket::DashboardLink;
use ring::rand::{SecureRandom, SystemRandom};

/// How long a login link works.
pub const TOKEN_LIFETIME: Duration = Duration::from_secs(10 * 60);
/// How long a session lasts after its login.
pub const SESSION_LIFETIME: Duration = Duration::from_secs(12 * 60 * 60);
/// Most sessions kept at once; the oldest goes when another opens.
const MAX_SESSIONS: usize = 16;
/// Most unused tokens kept at once; the oldest goes when another is made.
const MAX_TOKENS: usize = 16;

/// Why no secret could be made.
#[derive(Debug, thiserror::Error)]
#[error("the system's random source failed")]
pub struct NoRandom;

/// 256 random bits, URL-safe.
fn secret() -> Result<String, NoRandom> {
    let mut bytes = [0u8; 32];
    SystemRandom::new().fill(&mut bytes).map_err(|_| NoRandom)?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// One open session.
#[derive(Debug, Clone)]
struct Session {
    csrf: String,
    expires: Instant,
}

/// The tables: unused tokens and open sessions, each with its expiry.
#[derive(Debug, Default)]
pub struct Table {
    tokens: HashMap<String, Instant>,
    sessions: HashMap<String, Session>,
}

/// A session the login opened: the cookie's value and its CSRF token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opened {
    /// The cookie's value.
    pub id: String,
    /// The token its forms carry.
    pub csrf: String,
}

impl Table {
    fn prune(&mut self, now: Instant) {
        self.tokens.retain(|_, expires| *expires > now);
        self.sessions.retain(|_, s| s.expires > now);
    }

    /// A new one-time token, valid [`TOKEN_LIFETIME`] from `now`.
    pub fn issue(&mut self, now: Instant) -> Result<String, NoRandom> {
        self.prune(now);
        if self.tokens.len() >= MAX_TOKENS {
            if let Some(oldest) = self
                .tokens
                .iter()
                .min_by_key(|(_, e)| **e)
                .map(|(t, _)| t.clone())
            {
                self.tokens.remove(&oldest);
            }
        }
        let token = secret()?;
        self.tokens.insert(token.clone(), now + TOKEN_LIFETIME);
        Ok(token)
    }

    /// Uses `token` up: a new session when it was valid, `None` when it was unknown, used or
    /// expired.
    pub fn redeem(&mut self, token: &str, now: Instant) -> Result<Option<Opened>, NoRandom> {
        self.prune(now);
        if self.tokens.remove(token).is_none() {
            return Ok(None);
        }
        if self.sessions.len() >= MAX_SESSIONS {
            if let Some(oldest) = self
                .sessions
                .iter()
                .min_by_key(|(_, s)| s.expires)
                .map(|(id, _)| id.clone())
            {
                self.sessions.remove(&oldest);
            }
        }
        let opened = Opened {
            id: secret()?,
            csrf: secret()?,
        };
        self.sessions.insert(
            opened.id.clone(),
            Session {
                csrf: opened.csrf.clone(),
                expires: now + SESSION_LIFETIME,
            },
        );
        Ok(Some(opened))
    }

    /// The CSRF token of the open session `id`; `None` when there is none.
    pub fn csrf_of(&mut self, id: &str, now: Instant) -> Option<String> {
        self.prune(now);
        self.sessions.get(id).map(|s| s.csrf.clone())
    }
}

/// The actor owning the [`Table`]; it also answers the control socket's [`DashboardLink`].
pub struct Logins {
    table: Table,
    /// `http://127.0.0.1:<port>`: where the links point.
    origin: String,
}

impl Logins {
    /// Logins for the dashboard at `origin` (`http://host:port`, no slash at the end).
    pub fn new(origin: String) -> Self {
        Logins {
            table: Table::default(),
            origin,
        }
    }

    fn link(&mut self) -> Result<String, String> {
        let token = self.table.issue(Instant::now()).map_err(|e| {
            tracing::error!(cause = %e, "could not make a dashboard login token");
            e.to_string()
        })?;
        tracing::info!("a dashboard login link was handed out");
        Ok(format!("{}/login?token={token}", self.origin))
    }
}

impl Actor for Logins {
    type Context = Context<Self>;
}

/// Asks for a new one-time login link.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<String, String>")]
pub struct NewLink;

impl Handler<NewLink> for Logins {
    type Result = Result<String, String>;
    fn handle(&mut self, _msg: NewLink, _ctx: &mut Self::Context) -> Self::Result {
        self.link()
    }
}

impl Handler<DashboardLink> for Logins {
    type Result = Result<String, String>;
    fn handle(&mut self, _msg: DashboardLink, _ctx: &mut Self::Context) -> Self::Result {
        self.link()
    }
}

/// Uses a login token up; answered with the new session, or `None`.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Option<Opened>")]
pub struct Redeem(pub String);

impl Handler<Redeem> for Logins {
    type Result = Option<Opened>;
    fn handle(&mut self, msg: Redeem, _ctx: &mut Self::Context) -> Self::Result {
        match self.table.redeem(&msg.0, Instant::now()) {
            Ok(Some(opened)) => {
                tracing::info!("a dashboard login link was used; a session opened");
                Some(opened)
            }
            Ok(None) => {
                tracing::warn!(
                    "a dashboard login was refused: the link was unknown, used or expired"
                );
                None
            }
            Err(e) => {
                tracing::error!(cause = %e, "could not open a dashboard session");
                None
            }
        }
    }
}

/// Asks for the CSRF token of the session with this cookie value; `None`: no such session.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Option<String>")]
pub struct SessionCsrf(pub String);

impl Handler<SessionCsrf> for Logins {
    type Result = Option<String>;
    fn handle(&mut self, msg: SessionCsrf, _ctx: &mut Self::Context) -> Self::Result {
        self.table.csrf_of(&msg.0, Instant::now())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_opens_one_session_once() {
        let mut t = Table::default();
        let now = Instant::now();
        let token = t.issue(now).unwrap();
        let opened = t.redeem(&token, now).unwrap().expect("first use works");
        assert_eq!(t.csrf_of(&opened.id, now), Some(opened.csrf.clone()));
        assert_eq!(t.redeem(&token, now).unwrap(), None, "second use refused");
        assert_ne!(opened.id, opened.csrf);
        assert_eq!(t.csrf_of("guess", now), None);
    }

    #[test]
    fn tokens_and_sessions_expire() {
        let mut t = Table::default();
        let now = Instant::now();
        let late = t.issue(now).unwrap();
        assert_eq!(
            t.redeem(&late, now + TOKEN_LIFETIME + Duration::from_secs(1))
                .unwrap(),
            None
        );
        let token = t.issue(now).unwrap();
        let opened = t.redeem(&token, now).unwrap().unwrap();
        assert_eq!(
            t.csrf_of(&opened.id, now + SESSION_LIFETIME + Duration::from_secs(1)),
            None
        );
    }

    #[test]
    fn unused_tokens_are_capped() {
        let mut t = Table::default();
        let now = Instant::now();
        let first = t.issue(now).unwrap();
        for i in 0..MAX_TOKENS {
            t.issue(now + Duration::from_millis(i as u64 + 1)).unwrap();
        }
        assert_eq!(t.tokens.len(), MAX_TOKENS);
        assert_eq!(t.redeem(&first, now).unwrap(), None, "the oldest went");
    }
}
