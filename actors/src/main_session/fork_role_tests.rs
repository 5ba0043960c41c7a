//! Unit tests of `fork_role`.

use super::*;

#[test]
fn idleness_shows_a_note_then_nudges_twice_and_never_ends_the_fork() {
    let (note, first) = idle_nudge(0, "Sam", 10).unwrap();
    assert_eq!(note, Some("-# fork idle — checking in..."));
    assert!(first.starts_with("[fork-timeout]"), "{first}");
    let (note, second) = idle_nudge(1, "Sam", 10).unwrap();
    assert_eq!(note, None);
    assert!(second.contains("20 minutes"), "{second}");
    assert_eq!(idle_nudge(2, "Sam", 10), None);
    assert_eq!(idle_nudge(7, "Sam", 10), None);
}
