//! Letter-spaced text ("F I N A N C I A L  R E P O R T"): designers add space
//! after every letter of a title, and each letter then stands apart like a
//! word. The letters are joined back, and only the wider gaps between them
//! stay spaces: a word space against its run's spacing, not a share of size.
//! Small capitals imitated with two sizes ("MGM R ESORTS": each word's
//! capital at full size, the rest smaller, set apart as a word) are joined
//! the same way.

use super::page::Word;
use super::tuning::TUNING;

/// Joins runs of three or more one-letter words (sorted left to right) whose
/// gaps are all alike; a gap clearly wider than the letter spacing stays a space.
pub(super) fn join_spaced_letters(words: Vec<Word>) -> Vec<Word> {
    // A letter, a digit, or the comma or point inside a number: a
    // letter-spaced amount ("1 1 , 0 3 6") is joined like a word.
    let single = |w: &Word| {
        let mut cs = w.text.chars();
        matches!((cs.next(), cs.next()),
            (Some(c), None) if c.is_alphanumeric() || matches!(c, ',' | '.'))
    };
    if words.iter().filter(|w| single(w)).count() < TUNING.spaced_letters {
        return words;
    }
    let mut out: Vec<Word> = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        // The run of one-letter words starting here, each near the last.
        let mut j = i;
        while j < words.len()
            && single(&words[j])
            && (j == i
                || words[j].x0 - words[j - 1].x1
                    <= 2.0 * TUNING.letter_spacing * words[j].size.max(words[j - 1].size))
        {
            j += 1;
        }
        if j - i < TUNING.spaced_letters {
            out.push(words[i].clone());
            i += 1;
            continue;
        }
        let mut gaps: Vec<f32> = (i + 1..j).map(|k| words[k].x0 - words[k - 1].x1).collect();
        // The run's letter spacing: its usual gap (a kerned pair, "Wo",
        // sits closer, a word space further).
        gaps.sort_by(f32::total_cmp);
        let letter = gaps[(gaps.len() - 1) / 2].max(0.0);
        let size = words[i].size;
        let made_of =
            |of: fn(char) -> bool| words[i..j].iter().filter(move |w| w.text.chars().all(of));
        let letters = made_of(char::is_alphabetic).count();
        // Titles are letter-spaced in capitals (and amounts in digits);
        // one-letter variables of a formula sit as evenly, in lower case.
        let lower = made_of(|c| !c.is_uppercase() && !c.is_numeric()).count();
        let run = j - i;
        let apart = lower * TUNING.spaced_lower_in > run
            // Mostly digits: only a tight spacing, never a table's one-digit columns.
            || (letters * 2 < run && letter > TUNING.digit_spacing * size)
            || letter > TUNING.letter_spacing * size;
        if apart {
            out.extend(words[i..j].iter().cloned());
            i = j;
            continue;
        }
        // Word spaces: wider than the letter spacing by a good part of a space.
        let word_gap = letter + TUNING.word_space * size;
        let mut cur = words[i].clone();
        for w in &words[i + 1..j] {
            if w.x0 - cur.x1 > word_gap {
                out.push(std::mem::replace(&mut cur, w.clone()));
                continue;
            }
            cur.text.push_str(&w.text);
            cur.x1 = cur.x1.max(w.x1);
            cur.size = cur.size.max(w.size);
            cur.style.merge(&w.style);
            cur.pitch.merge(&w.pitch);
        }
        out.push(cur);
        i = j;
    }
    out
}

/// Joins a one-letter capital to the capitals after it when they are
/// smaller and close: a word set in imitated small capitals (words sorted
/// left to right).
pub(super) fn join_small_caps(words: Vec<Word>) -> Vec<Word> {
    let capital = |w: &Word| {
        let mut cs = w.text.chars();
        matches!((cs.next(), cs.next()), (Some(c), None) if c.is_uppercase())
    };
    let small_caps = |w: &Word| {
        w.text.chars().count() > 1 && w.text.chars().all(|c| c.is_uppercase() || c == '\'')
    };
    let mut out: Vec<Word> = Vec::with_capacity(words.len());
    for w in words {
        match out.last_mut() {
            Some(cap)
                if capital(cap)
                    && small_caps(&w)
                    && w.size <= TUNING.small_caps_size * cap.size
                    && (w.x0 - cap.x1).abs() <= TUNING.small_caps_gap * cap.size =>
            {
                cap.text.push_str(&w.text);
                cap.x1 = w.x1;
                cap.style.merge(&w.style);
                cap.pitch.merge(&w.pitch);
            }
            _ => out.push(w),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::pdf::page::StyleCount;
    use crate::ingest::pdf::pitch::Pitch;

    /// Words of one letter each `step` apart, `word` more between words.
    fn spaced(text: &str, x: f32, step: f32, word: f32) -> Vec<Word> {
        let mut out = Vec::new();
        let mut at = x;
        for c in text.chars() {
            if c == ' ' {
                at += word;
                continue;
            }
            out.push(Word {
                text: c.to_string(),
                x0: at,
                x1: at + 8.0,
                baseline: 100.0,
                size: 14.0,
                style: StyleCount {
                    bold: 1,
                    chars: 1,
                    ..StyleCount::default()
                },
                pitch: Pitch::default(),
            });
            at += 8.0 + step;
        }
        out
    }

    #[test]
    fn imitated_small_capitals_are_words_again() {
        let word = |text: &str, x0: f32, size: f32| Word {
            text: text.to_string(),
            x0,
            x1: x0 + 0.6 * size * text.chars().count() as f32,
            baseline: 100.0,
            size,
            style: StyleCount {
                chars: text.chars().count(),
                ..StyleCount::default()
            },
            pitch: Pitch::default(),
        };
        // "MGM R ESORTS I NTERNATIONAL": capitals at 19.4, the rest at 13.4.
        let line = vec![
            word("MGM", 72.0, 19.4),
            word("R", 115.0, 19.4),
            word("ESORTS", 131.4, 13.4),
            word("I", 185.0, 19.4),
            word("NTERNATIONAL", 201.4, 13.4),
        ];
        let w = join_small_caps(line);
        assert_eq!(texts(&w), ["MGM", "RESORTS", "INTERNATIONAL"]);
        assert_eq!(w[1].x1, 131.4 + 0.6 * 13.4 * 6.0);
        // An article before a word of the same size, or a capital far
        // from smaller capitals, stays apart.
        let same = vec![word("A", 72.0, 10.0), word("MATERIAL", 82.5, 10.0)];
        assert_eq!(texts(&join_small_caps(same)), ["A", "MATERIAL"]);
        let far = vec![word("X", 72.0, 10.0), word("NOTE", 120.0, 8.0)];
        assert_eq!(texts(&join_small_caps(far)), ["X", "NOTE"]);
    }

    fn texts(words: &[Word]) -> Vec<&str> {
        words.iter().map(|w| w.text.as_str()).collect()
    }

    #[test]
    fn letters_spaced_apart_are_words_again() {
        let w = join_spaced_letters(spaced("RISK FACTORS", 72.0, 5.0, 8.0));
        assert_eq!(texts(&w), ["RISK", "FACTORS"]);
        // A formula's one-letter variables are left alone.
        let formula = spaced("e b x n", 72.0, 3.0, 3.0);
        assert_eq!(texts(&join_spaced_letters(formula)).len(), 4);
        // Prose with a one-letter word or two is left alone.
        let mut prose = spaced("a", 72.0, 5.0, 0.0);
        prose.extend(spaced("I", 90.0, 5.0, 0.0));
        assert_eq!(texts(&join_spaced_letters(prose)), ["a", "I"]);
        // One-digit cells of a table stay apart; a letter-spaced amount
        // is one number.
        let cells = spaced("1 2 3 4", 72.0, 6.0, 40.0);
        assert_eq!(texts(&join_spaced_letters(cells)).len(), 4);
        let amount = spaced("11,036 10,843", 72.0, 2.0, 8.0);
        assert_eq!(texts(&join_spaced_letters(amount)), ["11,036", "10,843"]);
        // A kerned pair sits closer than the rest: the word stays whole.
        let mut kerned = spaced("WORLDWIDE", 72.0, 3.0, 0.0);
        for w in &mut kerned[1..] {
            w.x0 -= 2.0;
            w.x1 -= 2.0;
        }
        assert_eq!(texts(&join_spaced_letters(kerned)), ["WORLDWIDE"]);
        // One-letter cells (Y, N) a column apart stay cells.
        let flags = spaced("Y N Y", 72.0, 0.0, 20.0);
        assert_eq!(texts(&join_spaced_letters(flags)).len(), 3);
    }
}
