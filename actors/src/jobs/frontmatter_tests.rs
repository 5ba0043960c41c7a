use super::*;

#[test]
fn split_finds_yaml_and_trims_body() {
    let parts = split("---\nid: \"x\"\n---\n\n  Hello there.\n\n").unwrap();
    assert_eq!(parts.yaml, "id: \"x\"\n");
    assert_eq!(parts.body, "Hello there.");
}

#[test]
fn split_tolerates_bom_blank_lines_and_trailing_spaces() {
    let parts = split("\u{feff}\n---  \nid: 1\n--- \r\nbody").unwrap();
    assert_eq!(parts.yaml, "id: 1\n");
    assert_eq!(parts.body, "body");
}

#[test]
fn split_keeps_dashes_inside_values_and_body() {
    let parts = split("---\ndescription: \"a---b\"\n---\nline\n---\nmore\n").unwrap();
    assert_eq!(parts.yaml, "description: \"a---b\"\n");
    assert_eq!(parts.body, "line\n---\nmore");
}

#[test]
fn split_rejects_text_without_opening_line() {
    assert!(matches!(
        split("id: x\n---\nbody"),
        Err(ParseError::NoFrontmatter)
    ));
    assert!(matches!(split(""), Err(ParseError::NoFrontmatter)));
    assert!(matches!(
        split("----\nid: x\n---\n"),
        Err(ParseError::NoFrontmatter)
    ));
}

#[test]
fn split_rejects_unclosed_frontmatter() {
    assert!(matches!(
        split("---\nid: \"abc"),
        Err(ParseError::Unterminated)
    ));
}

#[test]
fn parse_yaml_names_a_non_mapping() {
    type Map = std::collections::BTreeMap<String, String>;
    assert!(matches!(
        parse_yaml::<Map>("- a\n- b\n"),
        Err(ParseError::NotAMapping)
    ));
    assert!(matches!(
        parse_yaml::<Map>(""),
        Err(ParseError::NotAMapping)
    ));
    assert!(matches!(
        parse_yaml::<Map>("just text\n"),
        Err(ParseError::NotAMapping)
    ));
    assert!(matches!(
        parse_yaml::<Map>("a: [\n"),
        Err(ParseError::Yaml(_))
    ));
}

#[test]
fn quote_escapes_what_yaml_needs_and_reads_back() {
    let original = "say \"hi\" \\ then\nnew line\ttab \u{7}";
    let quoted = quote(original);
    assert_eq!(
        quoted,
        "\"say \\\"hi\\\" \\\\ then\\nnew line\\ttab \\u0007\""
    );
    let back: String = serde_yaml::from_str(&quoted).unwrap();
    assert_eq!(back, original);
}

/// Reads `quote(text)` back as YAML the way a job file's value is read.
fn read_back(text: &str) -> Result<String, serde_yaml::Error> {
    serde_yaml::from_str(&quote(text))
}

/// Shrunk from `props::reminder_round_trips`: a skill `" \u{2028}"` came back as
/// `"\u{2028}"`. Written raw, YAML reads U+2028 and U+2029 as line breaks inside the quoted
/// scalar and drops the spaces and tabs around them.
#[test]
fn quote_escapes_line_and_paragraph_separators() {
    assert_eq!(quote("a \u{2028} b"), "\"a \\u2028 b\"");
    for text in [" \u{2028}", "a \u{2028} b", "a\t\u{2029}\tb"] {
        assert_eq!(read_back(text).unwrap(), text);
    }
}

/// Not a bug the properties found (serde_yaml and PyYAML keep a raw U+FEFF): written as an
/// escape because it is invisible and some tools strip it as a stray byte-order mark.
#[test]
fn quote_writes_the_byte_order_mark_as_an_escape() {
    assert_eq!(quote("\u{feff}x"), "\"\\uFEFFx\"");
    assert_eq!(read_back("\u{feff}x").unwrap(), "\u{feff}x");
}

/// Shrunk from `props::quoted_text_reads_back_exactly`: `"\u{fffe}"` was refused with
/// "control characters are not allowed", so the whole job file was skipped.
#[test]
fn quote_escapes_non_characters_yaml_refuses() {
    assert_eq!(quote("\u{fffe}\u{ffff}"), "\"\\uFFFE\\uFFFF\"");
    assert_eq!(read_back("\u{fffe}\u{ffff}").unwrap(), "\u{fffe}\u{ffff}");
}

/// U+0085 was already escaped (it is a control character); raw, YAML reads it as a break.
#[test]
fn quote_escapes_next_line() {
    assert_eq!(quote("a\u{85}b"), "\"a\\u0085b\"");
    assert_eq!(read_back("a\u{85}b").unwrap(), "a\u{85}b");
}

#[test]
fn writer_produces_the_original_layout() {
    let text = Writer::new()
        .text("id", "abc")
        .flag("background", true)
        .number("max-chain", 2)
        .list("skills", &["a".to_owned(), "b".to_owned()])
        .list("allowed-tools", &[])
        .finish("Body");
    assert_eq!(
        text,
        "---\nid: \"abc\"\nbackground: true\nmax-chain: 2\nskills:\n  - \"a\"\n  - \"b\"\nallowed-tools: []\n---\nBody\n"
    );
}

#[test]
fn writer_indents_blocks_and_inlines_one_liners() {
    let text = Writer::new()
        .block("fields", "type: object\nrequired:\n- a\n")
        .block("empty", "{}\n")
        .finish("");
    assert_eq!(
        text,
        "---\nfields:\n  type: object\n  required:\n  - a\nempty: {}\n---\n\n"
    );
}

#[test]
fn body_after_counts_the_lines_before_the_body_by_splits_rules() {
    assert_eq!(body_after("---\na: 1\n---\nbody\n"), (3, "body"));
    // Blank lines after the closing line are not part of the body; a delimiter may end in spaces.
    assert_eq!(body_after("---\na: 1\n---  \n\n\nbody\n"), (5, "body"));
    assert_eq!(body_after("no frontmatter\n"), (0, "no frontmatter\n"));
    assert_eq!(
        body_after("---\nnever closed\n"),
        (0, "---\nnever closed\n")
    );
}
