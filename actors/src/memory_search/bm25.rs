//! The scoring: Okapi BM25 over words, written out (a few dozen lines; no index engine for a
//! few thousand small files). Words are runs of letters and digits in any script, lowercased
//! the Unicode way (`Ä` and `ä` are one word, `straße` stays itself).

/// How fast a word's weight saturates with repeats.
const K1: f64 = 1.2;
/// How much a long document's length dilutes its matches.
const B: f64 = 0.75;

/// The words of `text`, lowercased.
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
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
    pub fn of(text: &str, terms: &[String]) -> Counts {
        let mut tf = vec![0; terms.len()];
        let mut len = 0;
        for word in words(text) {
            len += 1;
            if let Some(i) = terms.iter().position(|t| *t == word) {
                tf[i] += 1;
            }
        }
        Counts { len, tf }
    }
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

    #[test]
    fn a_long_document_is_diluted_against_a_short_one_with_the_same_count() {
        let long = format!("dentist {}", "filler ".repeat(200));
        let texts = [long.as_str(), "dentist on friday"];
        assert_eq!(rank(&texts, "dentist"), [1, 0]);
    }
}
