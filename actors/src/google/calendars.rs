//! Several calendars at once (SPEC §17): the account's calendars (`cal calendars`, from
//! `/calendar/v3/users/me/calendarList`) and the events of the calendars named by the
//! `google_calendars` config key merged in start order, each line tagged with its calendar
//! when more than one was asked (`  <id>  <when>  <summary> [work@example.com]`), and a
//! calendar that answers 404 skipped with `(calendar '<id>' not found — skipped)`.

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;
use serde::Deserialize;

use super::calendar::{self, midnight, Event};
use super::error::Error;
use super::rest::Rest;

/// Width of the id column of `cal calendars`.
const ID_WIDTH: usize = 39;

/// One calendar the account can reach, as Google lists it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CalendarEntry {
    /// Its id (for the user's own calendar, their address).
    pub id: String,
    /// Its name.
    #[serde(default)]
    pub summary: Option<String>,
    /// The name the user gave it, if any.
    #[serde(default)]
    pub summary_override: Option<String>,
    /// Whether it is the user's own calendar.
    #[serde(default)]
    pub primary: bool,
}

impl CalendarEntry {
    /// `  <id, padded>  <name>`; the user's own calendar shows as `primary`, the id the config
    /// key and `--calendar` take for it.
    pub fn line(&self) -> String {
        let id = if self.primary {
            calendar::PRIMARY
        } else {
            &self.id
        };
        let name = self
            .summary_override
            .as_deref()
            .or(self.summary.as_deref())
            .unwrap_or("");
        let name = crate::agent::untrusted_fence::one_line(name, calendar::TITLE_CHARS);
        format!("  {id:<ID_WIDTH$}  {name}").trim_end().to_owned()
    }
}

/// Every calendar the account can reach; every page.
pub async fn calendars(rest: &Rest) -> Result<Vec<CalendarEntry>, Error> {
    let mut url = rest.url(&["calendar", "v3", "users", "me", "calendarList"]);
    url.query_pairs_mut().append_pair("maxResults", "250");
    // A connection made before calendar listing was asked for gets a 403 naming the scope:
    // its plain words say to reconnect.
    rest.all_pages(url, None).await
}

/// An event and the calendar it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tagged {
    /// The calendar's id as configured.
    pub calendar: String,
    /// The event.
    pub event: Event,
}

/// The events of several calendars and the calendars that were not found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Merged {
    /// In start order.
    pub events: Vec<Tagged>,
    /// Calendars that answered 404.
    pub skipped: Vec<String>,
    /// Whether more than one calendar was asked: lines carry their calendar.
    pub tagged: bool,
}

impl Merged {
    /// The lines `cal today|upcoming` print: the skipped calendars, then the events (or
    /// `no events`).
    pub fn lines(&self, tz: Tz) -> Vec<String> {
        let mut lines: Vec<String> = self
            .skipped
            .iter()
            .map(|id| format!("(calendar '{id}' not found — skipped)"))
            .collect();
        if self.events.is_empty() {
            lines.push("no events".to_owned());
        }
        for t in &self.events {
            let line = t.event.line(tz);
            lines.push(if self.tagged {
                format!("{line} [{}]", t.calendar)
            } else {
                line
            });
        }
        lines
    }
}

/// When an event starts, for ordering: its time, or local midnight of an all-day event's date.
fn starts(event: &Event, tz: Tz) -> Option<DateTime<Utc>> {
    if let Some(t) = event.start.date_time.as_deref() {
        return DateTime::parse_from_rfc3339(t)
            .ok()
            .map(|t| t.with_timezone(&Utc));
    }
    let date = NaiveDate::parse_from_str(event.start.date.as_deref()?, "%Y-%m-%d").ok()?;
    Some(midnight(date, tz).with_timezone(&Utc))
}

/// The events of every calendar in `ids` between `from` and `to`, merged in start order (an
/// event whose start cannot be read goes last); a calendar answering 404 is skipped, any other
/// failure ends the listing.
pub async fn list_many(
    rest: &Rest,
    ids: &[String],
    from: DateTime<Tz>,
    to: DateTime<Tz>,
    tz: Tz,
) -> Result<Merged, Error> {
    let mut merged = Merged {
        tagged: ids.len() > 1,
        ..Merged::default()
    };
    for id in ids {
        match calendar::list(rest, id, from, to, tz).await {
            Ok(events) => merged.events.extend(events.into_iter().map(|event| Tagged {
                calendar: id.clone(),
                event,
            })),
            Err(Error::Api { status: 404, .. }) => {
                tracing::warn!(calendar = %id, "calendar not found; skipped");
                merged.skipped.push(id.clone());
            }
            Err(e) => return Err(e),
        }
    }
    merged
        .events
        .sort_by_key(|t| starts(&t.event, tz).map_or((1, DateTime::<Utc>::MIN_UTC), |s| (0, s)));
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::google::calendar::When;
    use chrono_tz::America::New_York;

    fn event(id: &str, start: When) -> Event {
        Event {
            id: id.into(),
            summary: Some(id.to_uppercase()),
            description: None,
            location: None,
            html_link: None,
            status: None,
            attendees: vec![],
            start: start.clone(),
            end: start,
        }
    }

    fn at(t: &str) -> When {
        When {
            date_time: Some(t.into()),
            date: None,
        }
    }

    #[test]
    fn calendars_line_up_in_two_columns_with_the_own_one_as_primary() {
        let own = CalendarEntry {
            id: "sam@example.com".into(),
            summary: Some("sam@example.com".into()),
            summary_override: Some("My Calendar".into()),
            primary: true,
        };
        assert_eq!(
            own.line(),
            "  primary                                  My Calendar"
        );
        let family = CalendarEntry {
            id: "family12345@group.calendar.google.com".into(),
            summary: Some("Family".into()),
            summary_override: None,
            primary: false,
        };
        assert_eq!(
            family.line(),
            "  family12345@group.calendar.google.com    Family"
        );
    }

    #[test]
    fn merged_lines_are_tagged_and_skips_come_first() {
        let merged = Merged {
            events: vec![Tagged {
                calendar: "work@example.com".into(),
                event: event("ev1", at("2026-02-24T14:00:00Z")),
            }],
            skipped: vec!["typo@example.com".into()],
            tagged: true,
        };
        assert_eq!(
            merged.lines(New_York),
            [
                "(calendar 'typo@example.com' not found — skipped)",
                "  ev1  2026-02-24  09:00-09:00  EV1 [work@example.com]",
            ]
        );
        let none = Merged::default();
        assert_eq!(none.lines(New_York), ["no events"]);
    }

    #[test]
    fn all_day_events_start_at_local_midnight() {
        let all_day = event(
            "a",
            When {
                date_time: None,
                date: Some("2026-02-24".into()),
            },
        );
        let early = event("b", at("2026-02-24T04:00:00Z"));
        assert!(starts(&all_day, New_York) > starts(&early, New_York));
    }
}
