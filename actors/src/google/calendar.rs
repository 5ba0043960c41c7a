//! Google Calendar, one calendar per call (`/calendar/v3/calendars/<calendar>/events`;
//! `primary` is Google's alias for the user's own), with times read and shown in the configured
//! zone, and the lines the agent reads (SPEC §15, §17):
//! `  <id>  <YYYY-MM-DD>  <HH:MM>-<HH:MM>  <summary>`, `  <id>  <YYYY-MM-DD>  (all-day)     <summary>`,
//! `created <id>: <summary>`, `no events`. [`list_many`] merges several calendars (the
//! `google_calendars` config key) in start order; [`calendars`] lists the account's calendars
//! (`/calendar/v3/users/me/calendarList`).

use chrono::{DateTime, LocalResult, NaiveDate, NaiveDateTime, TimeZone, Utc};
use chrono_tz::Tz;
use reqwest::Method;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::error::Error;
use super::rest::Rest;
use crate::agent::untrusted_fence::{block, one_line};

/// Longest title or location shown, in characters (SPEC §20: per-field caps).
pub const TITLE_CHARS: usize = 200;
/// Longest description shown, in characters.
pub const DESCRIPTION_CHARS: usize = 2000;

/// One event as Google returns it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// Its id.
    pub id: String,
    /// Its title.
    #[serde(default)]
    pub summary: Option<String>,
    /// Its description.
    #[serde(default)]
    pub description: Option<String>,
    /// Where.
    #[serde(default)]
    pub location: Option<String>,
    /// The link to it in Google Calendar.
    #[serde(default)]
    pub html_link: Option<String>,
    /// `confirmed`, `tentative`, `cancelled`.
    #[serde(default)]
    pub status: Option<String>,
    /// Who is invited.
    #[serde(default)]
    pub attendees: Vec<Attendee>,
    /// When it starts.
    #[serde(default)]
    pub start: When,
    /// When it ends.
    #[serde(default)]
    pub end: When,
}

/// An invited person.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Attendee {
    /// Their address.
    #[serde(default)]
    pub email: String,
}

/// A start or end: a time (`dateTime`) or, for all-day events, a date.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct When {
    /// RFC 3339 with offset.
    #[serde(default)]
    pub date_time: Option<String>,
    /// `YYYY-MM-DD`.
    #[serde(default)]
    pub date: Option<String>,
}

impl When {
    fn at(&self, tz: Tz) -> Option<DateTime<Tz>> {
        let text = self.date_time.as_deref()?;
        DateTime::parse_from_rfc3339(text)
            .ok()
            .map(|t| t.with_timezone(&tz))
    }
}

impl Event {
    /// The title, or `(no title)`.
    pub fn title(&self) -> &str {
        self.summary.as_deref().unwrap_or("(no title)")
    }

    /// `<date>  <HH:MM>-<HH:MM>  <summary>` in `tz`, or the all-day form.
    pub fn when_and_title(&self, tz: Tz) -> String {
        let title = one_line(self.title(), TITLE_CHARS);
        if let Some(start) = self.start.at(tz) {
            let end = self.end.at(tz).unwrap_or(start);
            return format!(
                "{}  {}-{}  {title}",
                start.format("%Y-%m-%d"),
                start.format("%H:%M"),
                end.format("%H:%M"),
            );
        }
        let date = self.start.date.as_deref().unwrap_or("????-??-??");
        format!("{date}  (all-day)     {title}")
    }

    /// The listing line.
    pub fn line(&self, tz: Tz) -> String {
        format!("  {}  {}", self.id, self.when_and_title(tz))
    }

    /// `cal show`: one labelled line per known field.
    pub fn details(&self, tz: Tz) -> Vec<String> {
        let mut lines = vec![
            format!("title:       {}", one_line(self.title(), TITLE_CHARS)),
            format!("when:        {}", self.when_and_title(tz)),
        ];
        let mut optional = |label: &str, value: Option<String>| {
            if let Some(v) = value.filter(|v| !v.is_empty()) {
                lines.push(format!("{label:<13}{v}"));
            }
        };
        let one = |v: &Option<String>| v.as_deref().map(|v| one_line(v, TITLE_CHARS));
        optional("location:", one(&self.location));
        let description = self
            .description
            .as_deref()
            .map(|v| block(v, DESCRIPTION_CHARS));
        optional("description:", description);
        optional("link:", one(&self.html_link));
        if !self.attendees.is_empty() {
            let who: Vec<&str> = self.attendees.iter().map(|a| a.email.as_str()).collect();
            lines.push(format!("attendees:   {}", who.join(", ")));
        }
        lines.push(format!(
            "status:      {}",
            self.status.as_deref().unwrap_or("unknown")
        ));
        lines.push(format!("id:          {}", self.id));
        lines
    }
}

fn in_zone(naive: NaiveDateTime, tz: Tz) -> Option<DateTime<Tz>> {
    match tz.from_local_datetime(&naive) {
        LocalResult::Single(t) => Some(t),
        LocalResult::Ambiguous(first, _) => Some(first),
        LocalResult::None => None,
    }
}

/// Reads a `--start`/`--end` time: `YYYY-MM-DDTHH:MM` (seconds optional) in `tz`, or a full
/// RFC 3339 time with its own offset.
pub fn parse_time(flag: &str, text: &str, tz: Tz) -> Result<DateTime<Tz>, Error> {
    let text = text.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Ok(t.with_timezone(&tz));
    }
    let naive = ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(text, f).ok())
        .ok_or_else(|| {
            Error::Input(format!(
                "{flag} {text:?} is not a time like 2026-02-24T14:00"
            ))
        })?;
    in_zone(naive, tz).ok_or_else(|| {
        Error::Input(format!(
            "{flag} {text:?} does not exist in {tz} (the clocks skip it)"
        ))
    })
}

/// Local midnight of `date` (or the first moment of the day where midnight is skipped).
pub(super) fn midnight(date: NaiveDate, tz: Tz) -> DateTime<Tz> {
    (0..24)
        .filter_map(|h| date.and_hms_opt(h, 0, 0))
        .find_map(|n| in_zone(n, tz))
        .unwrap_or_else(|| tz.from_utc_datetime(&date.and_time(chrono::NaiveTime::MIN)))
}

/// From local midnight today to local midnight `days` days later.
pub fn window(now: DateTime<Utc>, tz: Tz, days: u32) -> (DateTime<Tz>, DateTime<Tz>) {
    let today = now.with_timezone(&tz).date_naive();
    let last = today
        .checked_add_days(chrono::Days::new(u64::from(days)))
        .unwrap_or(today);
    (midnight(today, tz), midnight(last, tz))
}

/// Google's alias for the user's own calendar.
pub const PRIMARY: &str = "primary";

fn events_url(rest: &Rest, calendar: &str) -> url::Url {
    rest.url(&["calendar", "v3", "calendars", calendar, "events"])
}

fn event_url(rest: &Rest, calendar: &str, id: &str) -> url::Url {
    rest.url(&["calendar", "v3", "calendars", calendar, "events", id])
}

fn stamp(t: &DateTime<Tz>) -> String {
    t.format("%Y-%m-%dT%H:%M:%S%:z").to_string()
}

fn time_field(t: &DateTime<Tz>, tz: Tz) -> Value {
    json!({"dateTime": stamp(t), "timeZone": tz.name()})
}

/// Events of `calendar` between `from` and `to`, recurring ones expanded, in start order;
/// every page.
pub async fn list(
    rest: &Rest,
    calendar: &str,
    from: DateTime<Tz>,
    to: DateTime<Tz>,
    tz: Tz,
) -> Result<Vec<Event>, Error> {
    let mut url = events_url(rest, calendar);
    url.query_pairs_mut()
        .append_pair("timeMin", &stamp(&from))
        .append_pair("timeMax", &stamp(&to))
        .append_pair("singleEvents", "true")
        .append_pair("orderBy", "startTime")
        .append_pair("timeZone", tz.name())
        .append_pair("maxResults", "250");
    rest.all_pages(url, None).await
}

/// One event of `calendar`.
pub async fn get(rest: &Rest, calendar: &str, id: &str) -> Result<Event, Error> {
    rest.get(event_url(rest, calendar, id)).await
}

/// What an event is made of or changed to.
#[derive(Debug, Clone, Default)]
pub struct Fields {
    /// The title.
    pub summary: Option<String>,
    /// The start.
    pub start: Option<DateTime<Tz>>,
    /// The end.
    pub end: Option<DateTime<Tz>>,
    /// The description.
    pub description: Option<String>,
}

impl Fields {
    fn body(&self, tz: Tz) -> Result<Map<String, Value>, Error> {
        if let (Some(s), Some(e)) = (&self.start, &self.end) {
            if e <= s {
                return Err(Error::Input("--end must be after --start".into()));
            }
        }
        let mut body = Map::new();
        if let Some(s) = &self.summary {
            body.insert("summary".into(), json!(s));
        }
        if let Some(t) = &self.start {
            body.insert("start".into(), time_field(t, tz));
        }
        if let Some(t) = &self.end {
            body.insert("end".into(), time_field(t, tz));
        }
        if let Some(d) = &self.description {
            body.insert("description".into(), json!(d));
        }
        Ok(body)
    }
}

/// Creates an event in `calendar` (summary, start and end required).
pub async fn insert(rest: &Rest, calendar: &str, fields: &Fields, tz: Tz) -> Result<Event, Error> {
    if fields
        .summary
        .as_deref()
        .is_none_or(|s| s.trim().is_empty())
        || fields.start.is_none()
        || fields.end.is_none()
    {
        return Err(Error::Input(
            "an event needs a summary, --start and --end".into(),
        ));
    }
    let body = fields.body(tz)?;
    rest.send(
        Method::POST,
        events_url(rest, calendar),
        &Value::Object(body),
    )
    .await
}

/// Changes an event of `calendar` (at least one field).
pub async fn update(
    rest: &Rest,
    calendar: &str,
    id: &str,
    fields: &Fields,
    tz: Tz,
) -> Result<Event, Error> {
    let body = fields.body(tz)?;
    if body.is_empty() {
        return Err(Error::Input(
            "provide at least one of --summary, --start, --end, --description".into(),
        ));
    }
    rest.send(
        Method::PATCH,
        event_url(rest, calendar, id),
        &Value::Object(body),
    )
    .await
}

/// Deletes an event of `calendar`.
pub async fn delete(rest: &Rest, calendar: &str, id: &str) -> Result<(), Error> {
    rest.delete(event_url(rest, calendar, id)).await
}

#[cfg(test)]
#[path = "calendar_tests.rs"]
mod tests;
