//! The scoring: Okapi BM25 over words, written out (a few dozen lines; no index engine for a
//! few thousand small files). Words are runs of letters and digits in any script, lowercased
//! the Unicode way (`Ä` and `ä` are one word, `straße` stays itself).

/// How fast a word's weight saturates with repeats.
const K1: f64 = 1.2;
/// How much a long document's length dilutes its matches.
const B: f64 = 0.75;

/// The words of `text`, lowercased.
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    raw_words(text).map(str::to_lowercase)
}

/// What scoring needs of one document: its length in words and how often each query word
/// occurs in it (in the query's order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counts {
    /// Words in the document.
    pub len: usize,
    /// Occurrences of each query word.
    pub tf: Vec<u32>,
}

impl Counts {
    /// Counts `terms` (already lowercased words) in `text`.
    #[cfg(test)]
    pub fn of(text: &str, terms: &[String]) -> Counts {
        Counter::new(terms).count(text)
    }

    /// True when some query word occurs (the only way to score above zero).
    pub fn matches(&self) -> bool {
        self.tf.iter().any(|&n| n > 0)
    }
}

/// Counts the query's words in one text after another without keeping the text's words: a word
/// is only compared with the query's, ASCII ones in place and others lowercased into one reused
/// buffer, so the same answer as lowercasing every word ([`words`]) costs no allocation per word.
#[derive(Debug)]
pub struct Counter<'t> {
    terms: &'t [String],
    lower: String,
}

impl<'t> Counter<'t> {
    /// A counter for `terms` (already lowercased words).
    pub fn new(terms: &'t [String]) -> Self {
        Counter {
            terms,
            lower: String::new(),
        }
    }

    /// The length of `text` in words and how often each query word occurs in it.
    pub fn count(&mut self, text: &str) -> Counts {
        let mut tf = vec![0; self.terms.len()];
        let mut len = 0;
        for word in raw_words(text) {
            len += 1;
            if let Some(i) = self.term_of(word) {
                tf[i] += 1;
            }
        }
        Counts { len, tf }
    }

    /// How many words of `text` are query words.
    pub fn hits(&mut self, text: &str) -> usize {
        raw_words(text)
            .filter(|w| self.term_of(w).is_some())
            .count()
    }

    /// Which query word `word` (as written) is, once lowercased.
    fn term_of(&mut self, word: &str) -> Option<usize> {
        if word.is_ascii() {
            // Lowercasing ASCII is ASCII lowercasing, byte for byte; the terms hold no ASCII
            // capitals, so ignoring ASCII case on both sides is the same comparison.
            return self
                .terms
                .iter()
                .position(|t| t.as_bytes().eq_ignore_ascii_case(word.as_bytes()));
        }
        self.lower.clear();
        if word.contains('Σ') {
            // The one letter whose lowercase depends on where it stands in the word.
            self.lower.push_str(&word.to_lowercase());
        } else {
            for c in word.chars() {
                self.lower.extend(c.to_lowercase());
            }
        }
        self.terms.iter().position(|t| *t == self.lower)
    }
}

/// The words of `text` as written.
fn raw_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

/// The BM25 score of every document for a query of `terms` words, in the documents' order.
pub fn scores(docs: &[Counts], terms: usize) -> Vec<f64> {
    let n = docs.len() as f64;
    if docs.is_empty() {
        return Vec::new();
    }
    let avg_len = docs.iter().map(|d| d.len as f64).sum::<f64>() / n;
    let avg_len = avg_len.max(1.0);
    let idf: Vec<f64> = (0..terms)
        .map(|i| {
            let df = docs.iter().filter(|d| d.tf[i] > 0).count() as f64;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect();
    docs.iter()
        .map(|d| {
            let norm = K1 * (1.0 - B + B * d.len as f64 / avg_len);
            d.tf.iter()
                .zip(&idf)
                .map(|(&tf, idf)| {
                    let tf = f64::from(tf);
                    idf * tf * (K1 + 1.0) / (tf + norm)
                })
                .sum()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rank(texts: &[&str], query: &str) -> Vec<usize> {
        let terms: Vec<String> = words(query).collect();
        let docs: Vec<Counts> = texts.iter().map(|t| Counts::of(t, &terms)).collect();
        let s = scores(&docs, terms.len());
        let mut order: Vec<usize> = (0..texts.len()).filter(|&i| s[i] > 0.0).collect();
        order.sort_by(|&a, &b| s[b].total_cmp(&s[a]));
        order
    }

    #[test]
    fn words_are_unicode_lowercased_runs_of_letters_and_digits() {
        let w: Vec<String> = words("Zahnarzt-Termin: ÄRGER über 2 Öfen; naïve café").collect();
        assert_eq!(
            w,
            ["zahnarzt", "termin", "ärger", "über", "2", "öfen", "naïve", "café"]
        );
    }

    #[test]
    fn the_document_that_says_it_most_ranks_first_and_rare_words_weigh_more() {
        let texts = [
            "we talked about the dentist once and the weather",
            "dentist dentist: the dentist moved the appointment",
            "nothing relevant here at all, only the weather",
        ];
        assert_eq!(rank(&texts, "dentist"), [1, 0]);
        // "the" is everywhere and weighs little; "weather" decides who comes first.
        assert_eq!(rank(&texts, "the weather")[2], 1);
        assert!(rank(&texts, "piano").is_empty());
    }

    /// BM25 written out the plain way: every word of every document lowercased and kept.
    fn reference(texts: &[&str], terms: &[String]) -> Vec<f64> {
        let docs: Vec<Vec<String>> = texts.iter().map(|t| words(t).collect()).collect();
        let n = docs.len() as f64;
        let avg_len = (docs.iter().map(Vec::len).sum::<usize>() as f64 / n).max(1.0);
        docs.iter()
            .map(|doc| {
                terms
                    .iter()
                    .map(|term| {
                        let df = docs.iter().filter(|d| d.contains(term)).count() as f64;
                        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                        let tf = doc.iter().filter(|w| *w == term).count() as f64;
                        let norm = K1 * (1.0 - B + B * doc.len() as f64 / avg_len);
                        idf * tf * (K1 + 1.0) / (tf + norm)
                    })
                    .sum()
            })
            .collect()
    }

    #[test]
    fn the_streamed_counter_scores_like_the_plain_computation() {
        let texts = [
            "Dentist on FRIDAY; the dentist's bill (dentist-2) is paid",
            "ÄRGER mit dem Zahnarzt, ärger über die Straße — STRASSE",
            "ΟΔΟΣ and οδος, \u{212A}iwi and KIWI and kiwi, İstanbul",
            "",
            "--- nothing: 42 ---",
            "the weather, the garden, the dentist again and again and again",
        ];
        let queries = [
            "dentist",
            "the dentist",
            "ärger straße",
            "ΟΔΟΣ",
            "kiwi",
            "i̇stanbul",
            "42 again",
            "piano",
        ];
        for query in queries {
            let terms: Vec<String> = words(query).collect();
            // One counter for every document, as a search uses it.
            let mut counter = Counter::new(&terms);
            let docs: Vec<Counts> = texts.iter().map(|t| counter.count(t)).collect();
            let streamed = scores(&docs, terms.len());
            let plain = reference(&texts, &terms);
            for (i, (s, p)) in streamed.iter().zip(&plain).enumerate() {
                assert!((s - p).abs() < 1e-12, "{query:?} doc {i}: {s} vs {p}");
                assert_eq!(docs[i].matches(), *p > 0.0, "{query:?} doc {i}");
            }
            assert_eq!(
                docs.iter().map(|d| d.len).collect::<Vec<_>>(),
                texts.iter().map(|t| words(t).count()).collect::<Vec<_>>()
            );
        }
        // The non-ASCII forms really are counted: the Kelvin sign lowercases to an ASCII `k`,
        // a final capital sigma to `ς`.
        let kiwi = ["kiwi".to_owned()];
        assert_eq!(Counts::of(texts[2], &kiwi).tf, [3]);
        let odos: Vec<String> = words("ΟΔΟΣ").collect();
        assert_eq!(Counts::of(texts[2], &odos).tf, [2]);
    }

    #[test]
    fn a_long_document_is_diluted_against_a_short_one_with_the_same_count() {
        let long = format!("dentist {}", "filler ".repeat(200));
        let texts = [long.as_str(), "dentist on friday"];
        assert_eq!(rank(&texts, "dentist"), [1, 0]);
    }
}
