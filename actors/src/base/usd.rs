//! Amounts of US dollars as people type and read them, kept as whole cents so that caps are
//! exact and comparable: `10`, `10.5`, `$0.50` in; `10.00` and `$10.00` out.

/// Dollars as typed (`10`, `10.5`, `$0.50`, `.25`; at most two decimals) in cents; `None` for
/// anything else (signs, exponents, a third decimal).
pub fn cents(text: &str) -> Option<u64> {
    let digits = text.trim().trim_start_matches('$');
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty())
        || fraction.len() > 2
        || !all_digits(whole)
        || !all_digits(fraction)
    {
        return None;
    }
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let fraction: u64 = format!("{fraction:0<2}").parse().ok()?;
    whole.checked_mul(100)?.checked_add(fraction)
}

/// Cents as dollars with two decimals, without a sign: `10.00`.
pub fn dollars(cents: u64) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

/// Cents as dollars for people: `$10.00`.
pub fn shown(cents: u64) -> String {
    format!("${}", dollars(cents))
}

/// A dollar figure the CLI reported (`0.0123`) for people, to the cent: `$0.01`.
pub fn shown_usd(usd: f64) -> String {
    format!("${:.2}", usd.max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dollars_are_read_to_the_cent() {
        assert_eq!(cents("10"), Some(1000));
        assert_eq!(cents("10.5"), Some(1050));
        assert_eq!(cents(" $0.05 "), Some(5));
        assert_eq!(cents(".25"), Some(25));
        assert_eq!(cents("0"), Some(0));
        for bad in ["", "-1", "1.005", "ten", "1e3", "1.2.3", ".", "$", "+1"] {
            assert_eq!(cents(bad), None, "{bad:?}");
        }
        assert_eq!(dollars(7), "0.07");
        assert_eq!(shown(1000), "$10.00");
        assert_eq!(shown_usd(1.204), "$1.20");
    }
}
