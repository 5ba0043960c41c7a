//! Google Tasks (`/tasks/v1/lists/<list>/tasks…`) and Calendar
//! (`/calendar/v3/calendars/<calendar>/events…`, `/calendar/v3/users/me/calendarList`) over the
//! fake's stored resources; an unknown list or calendar answers 404.

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
    let ["v1", "lists", list, "tasks", rest @ ..] = segs else {
        return google_error(404, "Not Found");
    };
    let Some(tasks) = state.task_list_mut(list) else {
        return not_found();
    };
    let tasks = tasks.clone();
    match (r.method.as_str(), rest) {
        ("GET", []) => {
            let all = param(r, "showCompleted").as_deref() == Some("true");
            let items: Vec<Value> = tasks
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
            let id = state.add_task_to(list, title, due.as_deref(), false);
            let task = state
                .task_list_mut(list)
                .and_then(|ts| ts.iter_mut().find(|t| t["id"] == id.as_str()));
            let Some(task) = task else {
                return google_error(500, "lost the task");
            };
            merge(task, &body);
            ok(task.clone())
        }
        (method, [id]) => {
            let Some(tasks) = state.task_list_mut(list) else {
                return not_found();
            };
            let Some(at) = tasks.iter().position(|t| t["id"] == *id) else {
                return not_found();
            };
            match method {
                "GET" => ok(tasks[at].clone()),
                "PATCH" => {
                    merge(&mut tasks[at], &r.json());
                    ok(tasks[at].clone())
                }
                "DELETE" => {
                    tasks.remove(at);
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
    if segs == ["v3", "users", "me", "calendarList"] && r.method == "GET" {
        let mut items = vec![json!({
            "id": super::OWNER, "summary": super::OWNER,
            "summaryOverride": "My Calendar", "primary": true,
        })];
        items.extend(
            state
                .calendars
                .iter()
                .map(|(id, name, _)| json!({"id": id, "summary": name})),
        );
        let max_results = param(r, "maxResults").and_then(|m| m.parse().ok());
        return page(state, r, items, "items", max_results);
    }
    let ["v3", "calendars", calendar, "events", rest @ ..] = segs else {
        return google_error(404, "Not Found");
    };
    let Some(events) = state.calendar_mut(calendar) else {
        return not_found();
    };
    let events = events.clone();
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
            let mut items: Vec<Value> = events
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
            let id = state.add_event_to(calendar, body);
            let event = state
                .calendar_mut(calendar)
                .and_then(|es| es.iter().find(|e| e["id"] == id.as_str()).cloned());
            ok(event.unwrap_or(json!({})))
        }
        (method, [id]) => {
            let Some(events) = state.calendar_mut(calendar) else {
                return not_found();
            };
            let Some(at) = events.iter().position(|e| e["id"] == *id) else {
                return not_found();
            };
            match method {
                "GET" => ok(events[at].clone()),
                "PATCH" => {
                    merge(&mut events[at], &r.json());
                    ok(events[at].clone())
                }
                "DELETE" => {
                    events.remove(at);
                    Reply::Empty(204)
                }
                _ => google_error(405, "Method not allowed"),
            }
        }
        _ => google_error(404, "Not Found"),
    }
}
