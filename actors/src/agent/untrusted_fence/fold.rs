//! Folding: text reduced to the letters a reader sees, so a marker spelled with look-alikes is
//! recognised as the marker it imitates.
//!
//! Three steps, in order: characters nobody sees (zero-width, bidi controls, soft hyphens,
//! variation selectors, tag characters) are removed; Unicode NFKC turns compatibility forms
//! into their plain letters (full-width `ＴＡＳＫ`, mathematical `𝐓𝐀𝐒𝐊`, ligatures, circled
//! letters); and Cyrillic, Greek and other letters that look like Latin ones become those Latin
//! letters. Folding is for matching only: what is shown keeps its own letters (a Russian email
//! stays Russian), with only the invisible characters removed ([`strip_invisible`]).

use icu_normalizer::ComposingNormalizerBorrowed;

/// True for characters that render as nothing yet can split a word: zero-width spaces and
/// joiners, bidi embeddings, overrides and isolates, the word joiner and invisible operators,
/// the byte-order mark, soft hyphen, combining grapheme joiner, Arabic letter mark, Mongolian
/// vowel separator, Hangul fillers, variation selectors and tag characters.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{E0000}'..='\u{E007F}'
            | '\u{E0100}'..='\u{E01EF}'
    )
}

/// `text` without its invisible characters ([`is_invisible`]).
pub fn strip_invisible(text: &str) -> String {
    text.chars().filter(|c| !is_invisible(*c)).collect()
}

/// The Latin letter a look-alike imitates, if `c` is one.
fn latin_look_alike(c: char) -> Option<char> {
    Some(match c {
        // Cyrillic capitals.
        'А' => 'A',
        'В' => 'B',
        'С' => 'C',
        'Е' | 'Ё' => 'E',
        'Н' => 'H',
        'І' | 'Ӏ' => 'I',
        'Ј' => 'J',
        'К' => 'K',
        'М' => 'M',
        'О' => 'O',
        'Р' => 'P',
        'Ѕ' => 'S',
        'Т' => 'T',
        'У' | 'Ү' => 'Y',
        'Х' => 'X',
        'Ԁ' => 'D',
        'Ԛ' => 'Q',
        'Ԝ' => 'W',
        // Cyrillic small letters.
        'а' => 'a',
        'с' => 'c',
        'ԁ' => 'd',
        'е' | 'ё' => 'e',
        'һ' => 'h',
        'і' => 'i',
        'ј' => 'j',
        'к' => 'k',
        'м' => 'm',
        'о' => 'o',
        'р' => 'p',
        'ԛ' => 'q',
        'ѕ' => 's',
        'т' => 't',
        'у' | 'ү' => 'y',
        'х' => 'x',
        'ԝ' => 'w',
        'п' => 'n',
        'г' => 'r',
        // Greek capitals.
        'Α' => 'A',
        'Β' => 'B',
        'Ε' => 'E',
        'Ζ' => 'Z',
        'Η' => 'H',
        'Ι' => 'I',
        'Κ' => 'K',
        'Μ' => 'M',
        'Ν' => 'N',
        'Ο' => 'O',
        'Ρ' => 'P',
        'Τ' => 'T',
        'Υ' => 'Y',
        'Χ' => 'X',
        // Greek small letters.
        'α' => 'a',
        'ε' => 'e',
        'ι' => 'i',
        'κ' => 'k',
        'ν' => 'v',
        'ο' => 'o',
        'ρ' => 'p',
        'τ' => 't',
        'υ' => 'u',
        'χ' => 'x',
        // Armenian and Latin letters that pass for plain ones.
        'Ս' => 'U',
        'Օ' => 'O',
        'օ' => 'o',
        'ս' => 'u',
        'ı' => 'i',
        'ȷ' => 'j',
        'ꓔ' => 'T',
        'ꓢ' => 'S',
        'ꓰ' => 'E',
        'ꓓ' => 'D',
        'ꓠ' => 'N',
        'ꓣ' => 'R',
        'ꓮ' => 'A',
        'ꓗ' => 'K',
        'ᴀ' => 'A',
        'ᴅ' => 'D',
        'ᴇ' => 'E',
        'ᴋ' => 'K',
        'ɴ' => 'N',
        'ʀ' => 'R',
        'ᴛ' => 'T',
        'ᴜ' => 'U',
        _ => return None,
    })
}

/// `text` folded for matching: invisible characters removed, NFKC, look-alikes mapped to the
/// Latin letters they imitate (and invisible characters NFKC produced removed again).
pub fn fold(text: &str) -> String {
    let visible = strip_invisible(text);
    let normalized = ComposingNormalizerBorrowed::new_nfkc().normalize(&visible);
    normalized
        .chars()
        .filter(|c| !is_invisible(*c))
        .map(|c| latin_look_alike(c).unwrap_or(c))
        .collect()
}
