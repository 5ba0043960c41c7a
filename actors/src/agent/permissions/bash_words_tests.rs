//! Tests of [`super`] (bash_words.rs).

use super::*;

fn words(text: &str) -> Vec<Vec<String>> {
    parse(text)
        .commands
        .iter()
        .map(|c| {
            c.words
                .iter()
                .map(|w| {
                    w.literal()
                        .unwrap_or_else(|| format!("<{}>", w.known_text()))
                })
                .collect()
        })
        .collect()
}

fn targets(text: &str) -> Vec<(bool, String)> {
    parse(text)
        .commands
        .iter()
        .flat_map(|c| c.redirects.iter())
        .map(|r| (r.writes, r.target.known_text()))
        .collect()
}

#[test]
fn commands_split_at_every_operator_and_newline() {
    assert_eq!(
        words("a 1; b && c || d | e & f\ng (h)"),
        [
            vec!["a", "1"],
            vec!["b"],
            vec!["c"],
            vec!["d"],
            vec!["e"],
            vec!["f"],
            vec!["g"],
            vec!["h"]
        ]
    );
}

#[test]
fn quotes_and_escapes_make_one_word() {
    assert_eq!(
        words(r#"echo 'a b' "c $ d" e\ f "g\"h""#),
        [vec!["echo", "a b", "c $ d", "e f", "g\"h"]]
    );
    assert_eq!(words("echo a\\\nb"), [vec!["echo", "ab"]]);
}

#[test]
fn redirections_name_their_targets() {
    assert_eq!(
        targets("echo hi > a 2>b >>c &>d 1>|e <f <>g 2>&1 >& h"),
        [
            (true, "a".into()),
            (true, "b".into()),
            (true, "c".into()),
            (true, "d".into()),
            (true, "e".into()),
            (false, "f".into()),
            (true, "g".into()),
            (true, "1".into()),
            (true, "h".into())
        ]
    );
    assert_eq!(targets("echo hi>state/x"), [(true, "state/x".into())]);
    assert_eq!(words("echo 2 > x"), [vec!["echo", "2"]]);
}

#[test]
fn here_documents_are_text_and_here_strings_are_not_files() {
    let parsed = parse("cat <<EOF > out\nrm -rf /\nEOF\nls");
    assert_eq!(
        words("cat <<EOF > out\nrm -rf /\nEOF\nls"),
        [vec!["cat"], vec!["ls"]]
    );
    assert_eq!(parsed.commands[0].redirects.len(), 1);
    assert_eq!(targets("cat <<< state/x"), []);
}

#[test]
fn substitutions_are_unknown_and_their_text_is_kept() {
    let parsed = parse("echo \"$(touch a)\" `touch b` <(touch c) ${X:-$(touch d)} $'e'");
    assert_eq!(
        parsed.nested,
        ["touch a", "touch b", "touch c", ":-$(touch d)"]
    );
    assert!(parsed.commands[0].words[1..]
        .iter()
        .all(|w| w.literal().is_none()));
}

#[test]
fn variables_globs_and_home_are_pieces() {
    let parsed = parse("rm ~/x $HOME/y ${PWD}/z st*e a[b] {c,d} [ x ] {}");
    let w = &parsed.commands[0].words;
    assert_eq!(w[1].pieces[0], Piece::Var("HOME".into()));
    assert_eq!(w[2].pieces[0], Piece::Var("HOME".into()));
    assert_eq!(w[3].pieces[0], Piece::Var("PWD".into()));
    assert!(w[4].pieces.contains(&Piece::Dynamic));
    assert!(w[5].pieces.contains(&Piece::Dynamic));
    assert!(w[6].pieces.contains(&Piece::Dynamic));
    assert_eq!(w[7].literal().as_deref(), Some("["));
    assert_eq!(w[10].literal().as_deref(), Some("{}"));
}

#[test]
fn comments_end_at_the_line() {
    assert_eq!(words("ls # rm x\nrm y"), [vec!["ls"], vec!["rm", "y"]]);
    assert_eq!(words("echo a#b"), [vec!["echo", "a#b"]]);
}
