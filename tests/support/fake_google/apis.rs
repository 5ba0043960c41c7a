//! Google Tasks (`/tasks/v1/lists/@default/tasks…`) and Calendar
//! (`/calendar/v3/calendars/primary/events…`) over the fake's stored resources.

use chrono::{DateTime, FixedOffset};
use serde_json::{json, Value};

use super::http::{google_error, not_found, ok, page, param, Reply};
use super::state::{Request, State};

fn merge(into: &mut Value, patch: &Value) {
    if let (Some(into), Some(patch)) = (into.as_object_mut(), patch.as_object()) {
        for (k, v) in patch {
            into.insert(k.clone(), v.clone());
        }
    }
}

/// `/tasks/v1/…`.
pub fn tasks(state: &mut State, r: &Request, segs: &[&str]) -> Reply {
    let ["v1", "lists", "@default", "tasks", rest @ ..] = segs else {
        return google_error(404, "Not Found");
    };
    match (r.method.as_str(), rest) {
        ("GET", []) => {
            let all = param(r, "showCompleted").as_deref() == Some("true");
            let items: Vec<Value> = state
                .tasks
                .iter()
                .filter(|t| all || t["status"] != "completed")
                .cloned()
                .collect();
            let max = param(r, "maxResults").and_then(|m| m.parse().ok());
            page(state, r, items, "items", max)
        }
        ("POST", []) => {
            let body = r.json();
            let Some(title) = body["title"].as_str() else {
                return google_error(400, "Invalid value for: title");
            };
            let due = body["due"].as_str().map(|d| d[..10].to_owned());
            let id = state.add_task(title, due.as_deref(), false);
            let task = state.tasks.iter_mut().find(|t| t["id"] == id.as_str());
            let Some(task) = task else {
                return google_error(500, "lost the task");
            };
            merge(task, &body);
            ok(task.clone())
        }
        (method, [id]) => {
            let Some(at) = state.tasks.iter().position(|t| t["id"] == *id) else {
                return not_found();
            };
            match method {
                "GET" => ok(state.tasks[at].clone()),
                "PATCH" => {
                    merge(&mut state.tasks[at], &r.json());
                    ok(state.tasks[at].clone())
                }
                "DELETE" => {
                    state.tasks.remove(at);
                    Reply::Empty(204)
                }
                _ => google_error(405, "Method not allowed"),
            }
        }
        _ => google_error(404, "Not Found"),
    }
}

/// When an event starts; an all-day event at midnight of `zone` (the calendar's zone, here
/// the query's offset, as Google reads dates in the calendar's zone).
fn start_of(event: &Value, zone: FixedOffset) -> Option<DateTime<FixedOffset>> {
    let start = &event["start"];
    if let Some(t) = start["dateTime"].as_str() {
        return DateTime::parse_from_rfc3339(t).ok();
    }
    let date = chrono::NaiveDate::parse_from_str(start["date"].as_str()?, "%Y-%m-%d").ok()?;
    date.and_hms_opt(0, 0, 0)?.and_local_timezone(zone).single()
}

fn valid_time(v: &Value) -> bool {
    match v.get("dateTime").and_then(Value::as_str) {
        Some(t) => DateTime::parse_from_rfc3339(t).is_ok() && v.get("timeZone").is_some(),
        None => v.get("date").is_some(),
    }
}

/// `/calendar/v3/…`.
pub fn calendar(state: &mut State, r: &Request, segs: &[&str]) -> Reply {
    let ["v3", "calendars", "primary", "events", rest @ ..] = segs else {
        return google_error(404, "Not Found");
    };
    match (r.method.as_str(), rest) {
        ("GET", []) => {
            let bound = |k: &str| param(r, k).and_then(|t| DateTime::parse_from_rfc3339(&t).ok());
            let (Some(min), Some(max)) = (bound("timeMin"), bound("timeMax")) else {
                return google_error(400, "Bad Request: timeMin and timeMax must be RFC 3339");
            };
            if param(r, "orderBy").as_deref() == Some("startTime")
                && param(r, "singleEvents").as_deref() != Some("true")
            {
                return google_error(
                    400,
                    "The requested ordering is not available for the particular query.",
                );
            }
            let mut items: Vec<Value> = state
                .events
                .iter()
                .filter(|e| start_of(e, *min.offset()).is_some_and(|s| s >= min && s < max))
                .cloned()
                .collect();
            items.sort_by_key(|e| start_of(e, *min.offset()));
            let max_results = param(r, "maxResults").and_then(|m| m.parse().ok());
            page(state, r, items, "items", max_results)
        }
        ("POST", []) => {
            let body = r.json();
            if !valid_time(&body["start"]) || !valid_time(&body["end"]) {
                return google_error(400, "Missing time zone definition for start time.");
            }
            let id = state.add_event(body);
            let event = state
                .events
                .iter()
                .find(|e| e["id"] == id.as_str())
                .cloned();
            ok(event.unwrap_or(json!({})))
        }
        (method, [id]) => {
            let Some(at) = state.events.iter().position(|e| e["id"] == *id) else {
                return not_found();
            };
            match method {
                "GET" => ok(state.events[at].clone()),
                "PATCH" => {
                    merge(&mut state.events[at], &r.json());
                    ok(state.events[at].clone())
                }
                "DELETE" => {
                    state.events.remove(at);
                    Reply::Empty(204)
                }
                _ => google_error(405, "Method not allowed"),
            }
        }
        _ => google_error(404, "Not Found"),
    }
}
