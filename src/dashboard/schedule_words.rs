//! A routine's `cron` in words for the Jobs page: the common shapes said plainly
//! ("every day at 08:30", "weekdays at 09:00", "every 15 minutes"), anything else shown as the
//! expression itself. Only the wording is decided here; when it fires is the scheduler's.

/// `expr` in words, or `cron <expr>` when it is not one of the common shapes.
pub fn describe(expr: &str) -> String {
    let fields: Vec<&str> = expr.split_whitespace().collect();
    let Ok([minute, hour, dom, month, dow]) = <[&str; 5]>::try_from(fields.as_slice()) else {
        return format!("cron {expr}");
    };
    let number = |s: &str, max: u32| s.parse::<u32>().ok().filter(|n| *n <= max);
    let every_day = dom == "*" && month == "*";
    if every_day && dow == "*" && hour == "*" {
        if minute == "*" {
            return "every minute".to_owned();
        }
        if let Some(step) = minute.strip_prefix("*/").and_then(|s| number(s, 59)) {
            return format!("every {step} minutes");
        }
        if let Some(m) = number(minute, 59) {
            return format!("every hour at :{m:02}");
        }
    }
    let (Some(m), Some(h)) = (number(minute, 59), number(hour, 23)) else {
        return format!("cron {expr}");
    };
    let at = format!("{h:02}:{m:02}");
    if every_day {
        return match dow {
            "*" => format!("every day at {at}"),
            "1-5" | "mon-fri" | "MON-FRI" => format!("weekdays at {at}"),
            "0,6" | "6,0" | "6,7" | "sat,sun" | "SAT,SUN" => format!("weekends at {at}"),
            days => match day_names(days) {
                Some(names) => format!("every {names} at {at}"),
                None => format!("cron {expr}"),
            },
        };
    }
    if month == "*" && dow == "*" {
        if let Some(d) = number(dom, 31).filter(|d| *d > 0) {
            return format!("on day {d} of every month at {at}");
        }
    }
    format!("cron {expr}")
}

/// `1,3` → `Mon and Wed`; `None` for anything but a list of single days.
fn day_names(field: &str) -> Option<String> {
    const NAMES: [&str; 8] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    let names: Option<Vec<&str>> = field
        .split(',')
        .map(|d| {
            d.parse::<usize>()
                .ok()
                .and_then(|n| NAMES.get(n).copied())
                .or_else(|| {
                    NAMES
                        .iter()
                        .find(|name| name.eq_ignore_ascii_case(d))
                        .copied()
                })
        })
        .collect();
    let names = names?;
    Some(match names.as_slice() {
        [] => return None,
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    })
}

#[cfg(test)]
mod tests {
    use super::describe;

    #[test]
    fn common_shapes_read_as_words() {
        assert_eq!(describe("30 8 * * *"), "every day at 08:30");
        assert_eq!(describe("0 9 * * 1-5"), "weekdays at 09:00");
        assert_eq!(describe("0 10 * * 0,6"), "weekends at 10:00");
        assert_eq!(describe("0 18 * * 1,3"), "every Mon and Wed at 18:00");
        assert_eq!(describe("0 7 * * 0"), "every Sun at 07:00");
        assert_eq!(describe("*/15 * * * *"), "every 15 minutes");
        assert_eq!(describe("5 * * * *"), "every hour at :05");
        assert_eq!(describe("0 12 1 * *"), "on day 1 of every month at 12:00");
        assert_eq!(describe("0 8-17 * * *"), "cron 0 8-17 * * *");
        assert_eq!(describe("nonsense"), "cron nonsense");
    }
}
