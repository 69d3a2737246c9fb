//! Chinese, Japanese and Korean text for the keyword index.
//!
//! FTS5's unicode61 tokenizer makes a whole run of Han or kana characters
//! one token, so a two-character word inside a sentence written without
//! spaces can never match. kb indexes every run as its overlapping
//! character bigrams (`密钥轮换` → `密钥 钥轮 轮换`) and bigrams the query
//! the same way: most Chinese words are two characters long, longer words
//! match as several bigrams, and BM25 ranks chunks holding more of a
//! query's bigrams higher. No dictionary is needed and Latin text is left
//! alone.

/// The Unicode blocks of CJK text, in code point order: whether each
/// holds letters of a script written without spaces (Han, kana, Hangul,
/// with their extensions and marks) or punctuation and full-width forms.
const BLOCKS: &[(u32, u32, Kind)] = &[
    (0x1100, 0x11FF, Kind::Letter),      // Hangul Jamo
    (0x3000, 0x303F, Kind::Punctuation), // CJK symbols and punctuation
    (0x3040, 0x30FF, Kind::Letter),      // Hiragana, Katakana (with the prolonged sound mark)
    (0x3130, 0x318F, Kind::Letter),      // Hangul compatibility Jamo
    (0x31F0, 0x31FF, Kind::Letter),      // Katakana phonetic extensions
    (0x3400, 0x4DBF, Kind::Letter),      // CJK extension A
    (0x4E00, 0x9FFF, Kind::Letter),      // CJK unified ideographs
    (0xAC00, 0xD7AF, Kind::Letter),      // Hangul syllables
    (0xF900, 0xFAFF, Kind::Letter),      // CJK compatibility ideographs
    (0xFF00, 0xFF65, Kind::Punctuation), // full-width forms
    (0xFF66, 0xFF9F, Kind::Letter),      // half-width Katakana
    (0xFFA0, 0xFFEF, Kind::Punctuation), // half-width Hangul and other forms
    (0x20000, 0x2FA1F, Kind::Letter),    // CJK extensions B.. and compatibility supplement
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Letter,
    Punctuation,
}

fn kind(c: char) -> Option<Kind> {
    let c = c as u32;
    let i = BLOCKS.partition_point(|(_, hi, _)| *hi < c);
    BLOCKS
        .get(i)
        .filter(|(lo, _, _)| *lo <= c)
        .map(|(_, _, k)| *k)
}

/// Whether `c` is a letter of a CJK script written without spaces (Han,
/// Hiragana, Katakana, Hangul, and their extensions and marks).
pub fn is_cjk(c: char) -> bool {
    kind(c) == Some(Kind::Letter)
}

/// Whether `c` is CJK text at all: a letter, or CJK punctuation and
/// full-width forms (each counts as a token of its own).
pub fn is_cjk_or_punctuation(c: char) -> bool {
    kind(c).is_some()
}

/// Calls `f` with every bigram of every CJK run in `text` (a run of one
/// character gives that character).
pub fn for_each_bigram(text: &str, mut f: impl FnMut(&str)) {
    let mut run: Vec<(usize, char)> = Vec::new();
    let mut flush = |run: &mut Vec<(usize, char)>| {
        match run.len() {
            0 => {}
            1 => {
                let (i, c) = run[0];
                f(&text[i..i + c.len_utf8()]);
            }
            _ => {
                for w in run.windows(2) {
                    let (i, _) = w[0];
                    let (j, c) = w[1];
                    f(&text[i..j + c.len_utf8()]);
                }
            }
        }
        run.clear();
    };
    for (i, c) in text.char_indices() {
        if is_cjk(c) {
            run.push((i, c));
        } else {
            flush(&mut run);
        }
    }
    flush(&mut run);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_table_tells_letters_from_punctuation() {
        assert!(BLOCKS.windows(2).all(|w| w[0].1 < w[1].0), "sorted, apart");
        for c in ['密', 'の', 'カ', 'ｶ', '한', 'ᄀ', '𠀀'] {
            assert!(is_cjk(c) && is_cjk_or_punctuation(c), "{c}");
        }
        for c in ['。', '「', '，', '　'] {
            assert!(!is_cjk(c) && is_cjk_or_punctuation(c), "{c}");
        }
        for c in ['a', 'é', '1', ' ', 'Ω'] {
            assert!(!is_cjk_or_punctuation(c), "{c}");
        }
    }

    fn bigrams(t: &str) -> Vec<String> {
        let mut v = Vec::new();
        for_each_bigram(t, |b| v.push(b.to_string()));
        v
    }

    #[test]
    fn runs_become_overlapping_bigrams() {
        assert_eq!(bigrams("密钥轮换"), ["密钥", "钥轮", "轮换"]);
        assert_eq!(
            bigrams("用 ssh-agent 管理密钥。"),
            ["用", "管理", "理密", "密钥"]
        );
        assert_eq!(bigrams("鍵"), ["鍵"]);
        assert_eq!(bigrams("キーの更新"), ["キー", "ーの", "の更", "更新"]);
        assert_eq!(bigrams("열쇠 교체"), ["열쇠", "교체"]);
    }

    #[test]
    fn latin_text_gives_nothing() {
        assert!(bigrams("Rotating SSH keys, café, naïve, Ελληνικά").is_empty());
    }
}
