//! What a line's text looks like (a heading, a sentence's end, a bullet,
//! a date) and how wrapped lines join back into a paragraph.

use super::hyphens::Hyphenation;
use super::labels::label;
use super::lexicon::*;
use super::numbering::{item_heading, numbered_depth, rtl_numbered, tex_command_first};
use super::page::Line;
use super::tuning::TUNING;

pub(super) fn starts_with_bullet(t: &str) -> bool {
    let mut cs = t.chars();
    match cs.next() {
        Some(c) if LIST_MARKS.contains(c) => true,
        Some(c) if LIST_DASHES.contains(c) || c == '*' => cs.next() == Some(' '),
        _ => false,
    }
}

/// Opens with a list item's number and a space: `2.`, `12)`, `(3)`, `(b)`.
pub(super) fn starts_with_enumerator(t: &str) -> bool {
    let Some((first, rest)) = t.split_once(' ') else {
        return false;
    };
    let number = |s: &str| {
        (1..=TUNING.enumerator_digits).contains(&s.len()) && s.chars().all(|c| c.is_ascii_digit())
    };
    let letter = |s: &str| s.len() == 1 && s.chars().all(|c| c.is_ascii_lowercase());
    let numbered = match first.strip_prefix('(') {
        Some(inner) => inner
            .strip_suffix(')')
            .is_some_and(|i| number(i) || letter(i)),
        None => first.strip_suffix(['.', ')']).is_some_and(number),
    };
    numbered && !rest.trim().is_empty()
}

/// Ends with `.`, `!`, `?`, `:` or `…` (or their full-width forms),
/// closing quotes and brackets aside.
pub(super) fn ends_sentence(t: &str) -> bool {
    let t = t.trim_end_matches(|c: char| {
        c.is_whitespace() || matches!(c, ')' | ']' | '"' | '\'' | '”' | '’' | '»' | '」' | '）')
    });
    matches!(
        t.chars().last(),
        Some('.' | '!' | '?' | ':' | '…' | '。' | '！' | '？' | '：')
    )
}

/// Joins wrapped lines with spaces; a word hyphenated at a line end
/// (`infor-` + `mation`) is joined back, a compound the document spells
/// with its hyphen (`stock-` + `based`) keeps it.
pub(super) fn join_lines(lines: &[&Line], hyphens: &Hyphenation) -> String {
    let mut s = String::new();
    lines
        .iter()
        .for_each(|l| append_line(&mut s, &l.text, hyphens));
    collapse_leaders(&s)
}

/// Replaces dot leaders (`Results . . . . . 12`, four dots or more) with
/// ` … `, so tables of contents do not fill chunks with dots.
pub(super) fn collapse_leaders(s: &str) -> String {
    if !s.contains("....") && !s.contains(". . . .") {
        return s.to_string();
    }
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '.' {
            let mut j = i;
            let mut dots = 0;
            while j < chars.len() && (chars[j] == '.' || chars[j] == ' ') {
                dots += usize::from(chars[j] == '.');
                j += 1;
            }
            if dots >= TUNING.leader_dots.0 {
                out.truncate(out.trim_end().len());
                out.push_str(LEADER);
                i = j;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// A dot leader's character.
fn leader_dot(c: char) -> bool {
    matches!(c, '.' | '·' | '…' | '⋅')
}

/// Dot leaders and nothing else: `· · · ·`, `. . . .`, `……`.
pub(super) fn leaders(t: &str) -> bool {
    t.chars().all(|c| c.is_whitespace() || leader_dot(c))
}

/// A run of dot leaders first among `chars` (a span's characters, or
/// reversed, its last): an ellipsis, or three dots spaced or not.
pub(super) fn leader_run(chars: impl Iterator<Item = char>) -> bool {
    let mut chars = chars.filter(|c| !c.is_whitespace()).peekable();
    let n = TUNING.leader_dots.1;
    chars.peek() == Some(&'…') || chars.take(n).filter(|&c| leader_dot(c)).count() == n
}

/// Appends `next` to a paragraph as the following line.
pub(super) fn append_line(s: &mut String, next: &str, hyphens: &Hyphenation) {
    let next = next.trim();
    if next.is_empty() {
        return;
    }
    let before_last = s.chars().rev().nth(1);
    // An identifier broken after an underscore (`R_` + `LIBS_USER`), as
    // TeX breaks them.
    let word_char = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let identifier = s.ends_with('_') && word_char(before_last) && word_char(next.chars().next());
    let hyphen_after_letter = s.ends_with('-') && before_last.is_some_and(char::is_alphabetic);
    let starts = |f: fn(char) -> bool| next.chars().next().is_some_and(f);
    let hyphenated = hyphen_after_letter && starts(char::is_lowercase);
    // A word is not hyphenated before a capital: a compound is
    // (`Kpathsea-` over `Bibliothek`, `Wal-` over `Mart`), unless a word in
    // capitals is broken (`SOFT-` over `WARE`, `POIN-` over `T_SIZE`) that
    // the document writes whole.
    let before_capital = hyphen_after_letter && starts(char::is_uppercase);
    let broken_capitals = before_capital && hyphens.joins_capitals(&s[..s.len() - 1], next);
    let capital = before_capital && !broken_capitals;
    if capital || (hyphenated && hyphens.keeps(&s[..s.len() - 1], next)) {
        // A compound: its hyphen stays, with no space after it.
    } else if s.ends_with('\u{ad}') || hyphenated || broken_capitals {
        s.pop();
    } else if !s.is_empty() && !identifier {
        s.push(' ');
    }
    s.push_str(next);
}

/// An index's letter: one capital letter alone on its line, over an
/// entry that starts with it ("A" over "\\alph . . . 75").
pub(super) fn index_letter(line: &Line, next: Option<&Line>) -> bool {
    let mut cs = line.text.trim().chars();
    let (Some(letter), None) = (cs.next(), cs.next()) else {
        return false;
    };
    letter.is_uppercase()
        && next.is_some_and(|n| {
            n.text
                .chars()
                .find(|c| c.is_alphanumeric())
                .is_some_and(|c| c.to_lowercase().eq(letter.to_lowercase()))
        })
}

/// Which of an index's letters (page, letter) run in alphabetical order,
/// five or more a page or two apart ("A" to "Z" over an index's entries):
/// such a run is an index's whatever its type, where a lone capital over a
/// word that starts with it, in the text's own type, may be a figure's label.
pub(super) fn alphabet_runs(letters: &[(u32, char)]) -> Vec<bool> {
    let mut sure = vec![false; letters.len()];
    let mut start = 0;
    for i in 1..=letters.len() {
        let goes_on = letters.get(i).is_some_and(|&(page, c)| {
            let (p, prev) = letters[i - 1];
            c > prev && page <= p + 2
        });
        if !goes_on {
            if i - start >= TUNING.alphabet_run {
                sure[start..i].fill(true);
            }
            start = i;
        }
    }
    sure
}

/// The name of an index's group of entries that start with no letter.
pub(super) fn index_group(t: &str) -> bool {
    INDEX_GROUPS.contains(&t.trim().to_lowercase().as_str())
}

/// Whether a block's text could be a heading: short, starts with a capital
/// or a number, no final period, mostly letters, not a caption or a table
/// of contents entry.
pub(super) fn heading_text(t: &str) -> bool {
    text_faults(t) == TextFaults::default()
}

/// Each reason a block's text cannot be a heading, told apart (the rules
/// of `layout/rules.rs` weigh them one by one).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct TextFaults {
    pub ill_sized: bool,
    pub lower_case: bool,
    pub sentence: bool,
    pub glossary: bool,
    pub cut_off: bool,
    pub few_letters: bool,
    pub field_or_link: bool,
    pub date: bool,
    pub label: bool,
    pub code: bool,
    pub contents_entry: bool,
    pub caption: bool,
}

pub(super) fn text_faults(t: &str) -> TextFaults {
    let t = t.trim();
    TextFaults {
        ill_sized: !heading_sized(t),
        lower_case: title_start(t).is_lowercase() && !names_in_code(t),
        sentence: sentence(t),
        glossary: glossary_entry(t),
        cut_off: cut_off(t),
        few_letters: !mostly_letters(t),
        field_or_link: field_or_link(t),
        date: is_date(t),
        label: label(t),
        code: code_or_markup(t),
        contents_entry: contents_entry(t),
        caption: figure_caption(t),
    }
}

/// Starts with a name whose case is its own, as code writes it: a call or a
/// manual page (`exec(`, `git-am(1)`), a member or a file (`rl.getCursorPos`,
/// `tablor.sty`, not "e.g."), a name joined by `_` (`child_process`). Such
/// a line may head a section though it starts in lower case; so may a name
/// before its summary, after a dash (`aifc — Read and write AIFF files`, a
/// module's or a manual page's title). A word in camel case alone
/// (`gitCommitterEmail`) is no sign: a manual's bold labels of macros and
/// keys are set so.
fn names_in_code(t: &str) -> bool {
    let mut words = t.split_whitespace();
    let word: Vec<char> = words.next().unwrap_or("").chars().collect();
    let name = |part: &[char]| part.iter().filter(|c| c.is_alphanumeric()).count() >= 2;
    let joined = |i: usize| name(&word[..i]) && name(&word[i + 1..]);
    let summary = words.next().is_some_and(|d| ENTRY_DASHES.contains(&d))
        && words
            .next()
            .is_some_and(|w| w.starts_with(char::is_uppercase));
    word.windows(2)
        .any(|w| w[0].is_alphanumeric() && w[1] == '(')
        || word
            .iter()
            .position(|&c| c == '.' || c == '_')
            .is_some_and(joined)
        || (name(&word) && summary)
}

/// Short, and starting with a letter, a number or `§`.
fn heading_sized(t: &str) -> bool {
    let first = title_start(t);
    (TUNING.heading_chars.0..=TUNING.heading_chars.1).contains(&t.chars().count())
        && t.split_whitespace().count() <= TUNING.heading_words
        && (first.is_alphanumeric() || first == '§')
}

/// The first character of the title, after a right-to-left number.
fn title_start(t: &str) -> char {
    let title = rtl_numbered(t).map_or(t, |(_, title)| title);
    title.chars().next().unwrap_or(' ')
}

/// Closing punctuation, or a full stop, comma or semicolon of a script
/// without spaces inside the line ("直接运行会调用…导致报错。如需…").
fn sentence(t: &str) -> bool {
    // A heading has no closing punctuation, but a filing's item with its title
    // may end on a full stop ("Item 4. Controls and Procedures."); a company's
    // name ending "Inc." stays out: it tops a filing's statement pages.
    let full_stop_ok = t.ends_with('.')
        && item_heading(t)
        && t.split_whitespace().count() > TUNING.item_title_words;
    // A sentence may close on a quotation mark: "…under the symbol “WMT.”"
    let unquoted = t.trim_end_matches(['”', '’', '"', '\'']);
    let closes = matches!(
        unquoted.chars().last(),
        Some('.' | ',' | ';' | ':' | '-' | '。' | '，' | '；' | '：' | '、')
    );
    (closes && !full_stop_ok) || t.contains(['。', '，', '；'])
}

/// A glossary's entry: an acronym, a colon and what it stands for
/// ("FASB: Financial Accounting Standards Board", "U.S.: United States").
fn glossary_entry(t: &str) -> bool {
    let (term, rest) = t.split_once([':', '：']).unwrap_or_default();
    let letters = term.chars().filter(|c| c.is_alphabetic());
    let acronym = (TUNING.acronym_letters.0..=TUNING.acronym_letters.1)
        .contains(&letters.clone().count())
        && letters.clone().all(char::is_uppercase)
        && term
            .chars()
            .all(|c| c.is_alphabetic() || "&./-".contains(c));
    acronym && !rest.trim().is_empty()
}

/// A line that stops on a lower-case joining word is cut off mid-phrase
/// (a table's wrapped row label, "Receivables from"), not a title.
pub(super) fn cut_off(t: &str) -> bool {
    let words: Vec<&str> = t.split_whitespace().collect();
    words.len() > 1 && JOINING_WORDS.contains(&words[words.len() - 1])
}

/// A line's words after its number ("3.2.1 学位信息" gives "学位信息").
fn after_number(t: &str) -> &str {
    match t.split_once(' ') {
        Some((n, rest)) if n.chars().all(|c| c.is_ascii_digit() || c == '.') => rest,
        _ => t,
    }
}

/// Mostly letters after its number: "3.2.1 学位信息" has four letters
/// to five marks of numbering.
fn mostly_letters(t: &str) -> bool {
    let words = after_number(t);
    let letters = words.chars().filter(|c| c.is_alphabetic()).count();
    let visible = words.chars().filter(|c| !c.is_whitespace()).count();
    letters >= TUNING.heading_letters && letters * 2 >= visible
}

/// A form's check box ("Yes ☐ No ☒"): a field to fill in (a box drawn in a
/// symbol font may come out as "¨", but so does a German umlaut set apart
/// from its letter: "Uberschriften ¨"); or an ellipsis (not code's spread
/// before a name: `fn(...args)`), an address or a link.
fn field_or_link(t: &str) -> bool {
    t.contains(['☐', '☒', '☑'])
        || t.split("...")
            .skip(1)
            .any(|after| !after.starts_with(char::is_alphabetic))
        || t.contains(LEADER)
        || t.ends_with(LEADER.trim_end())
        || t.contains('@')
        || t.contains("://")
}

/// Code, markup and formulas are not headings; a title that names a command among
/// words ("The \\subref command", "L'environnement {NiceArray}") is one, and
/// so is a numbered section named by its commands.
fn code_or_markup(t: &str) -> bool {
    (t.contains(['<', '>', '=', '$', '|', '%', ';']) && !signature(after_number(t)))
        || (t.contains(['\\', '{', '}']) && !names_a_command(t) && !numbered_command(t))
}

/// A numbered subsection whose title starts with the TeX command it describes:
/// "3.1 \\attachfile[options]{filename}", "3.5. \\xintDigits*, \\xintSetDigits*".
fn numbered_command(t: &str) -> bool {
    numbered_depth(t).is_some() && tex_command_first(after_number(t))
}

/// A numbered line ending in a number is a table of contents entry.
fn contents_entry(t: &str) -> bool {
    let mut words = t.split_whitespace();
    let first = words.next();
    let last = words.last().or(first);
    first.is_some_and(|w| w.chars().all(|c| c.is_ascii_digit() || c == '.'))
        && last.is_some_and(|w| w.chars().all(|c| c.is_ascii_digit()))
}

/// A figure's or table's caption: "Figure 3", "Fig. 2:", "Table 1".
pub(super) fn figure_caption(t: &str) -> bool {
    let mut words = t.split_whitespace();
    let w0 = words.next().unwrap_or("").to_lowercase();
    let w1 = words.next().unwrap_or("");
    CAPTION_WORDS.contains(&w0.trim_end_matches(['.', ':']))
        && w1.chars().next().is_some_and(|c| c.is_ascii_digit())
}

/// A function's signature, as an API reference heads its entry:
/// `DocAssign(self, var, expr, life='forever')`, its defaults after `=`.
fn signature(t: &str) -> bool {
    let (name, args) = t.split_once('(').unwrap_or_default();
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        && args.ends_with(')')
        && !args.contains(['<', '>', '$', '|', '%', ';', '(', '{'])
}

/// One or two TeX commands or environments named among words of
/// letters ("The \\subref command", "Le \\CodeAfter").
fn names_a_command(t: &str) -> bool {
    let (markup, words): (Vec<&str>, Vec<&str>) = t
        .split_whitespace()
        .partition(|w| w.contains(['\\', '{', '}']));
    markup.len() <= 2
        && words.iter().any(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric());
            w.chars().filter(|c| c.is_alphabetic()).count() >= 2
                && w.chars()
                    .all(|c| c.is_alphabetic() || c == '\'' || c == '’')
        })
}

/// The heading of an abstract, in the languages kb sees most: a title
/// page's heading that heads text, however short its first line.
pub(super) fn abstract_title(t: &str) -> bool {
    ABSTRACT_TITLES.contains(&letters(t).as_str())
}

/// A date on a line of its own ("February 27, 2019", "June 2021",
/// "2016 年 3 月 20 日"), or a line ending in a whole date ("Date: May 4,
/// 2021", "For the fiscal year ended December 31, 2022"): the dateline
/// of a cover, a signature or a report, not a heading.
pub(super) fn is_date(t: &str) -> bool {
    let words = lower_words(t, |c| c.is_whitespace() || c == ',');
    let number = |w: &String, len: std::ops::RangeInclusive<usize>| {
        len.contains(&w.len()) && w.chars().all(|c| c.is_ascii_digit())
    };
    let year_len = TUNING.year_digits;
    let alone = words.len() <= TUNING.date_words
        && words.first().is_some_and(|w| MONTHS.contains(&w.as_str()))
        && words[1..].iter().all(|w| number(w, 1..=year_len))
        && words.len() >= 2;
    let ends_in_date = words.len() >= TUNING.date_words && {
        let [month, day, year] = &words[words.len() - TUNING.date_words..] else {
            return false;
        };
        MONTHS.contains(&month.as_str()) && number(day, 1..=2) && number(year, year_len..=year_len)
    };
    alone || ends_in_date || cjk_date_end(t)
}

/// A line ending in a year and month of a script without spaces:
/// `2016 年 3 月 20 日`, `二〇二二年十月`, `哈尔滨工业大学 2020 年 1 月`.
fn cjk_date_end(t: &str) -> bool {
    let compact: Vec<char> = t.chars().filter(|c| !c.is_whitespace()).collect();
    let numeral = |c: &&char| c.is_ascii_digit() || CJK_DATE_NUMERALS.contains(**c);
    let mut rest = compact.as_slice();
    // Strips `unit` and the number before it from the end of `rest`.
    let mut unit = |u: char| match rest.split_last() {
        Some((&c, before)) if c == u => {
            let n = before.iter().rev().take_while(numeral).count();
            rest = &before[..before.len() - n];
            n > 0
        }
        _ => false,
    };
    let day = compact.last() == Some(&'日');
    (!day || unit('日')) && unit('月') && unit('年')
}

/// Every letter upper-case, at least four of them. Letters of a script without case
/// (Chinese, Japanese, Thai) are neither: a line of them is not "all caps".
pub(super) fn all_caps(t: &str) -> bool {
    let mut letters = t.chars().filter(|c| c.is_alphabetic());
    letters.clone().filter(|c| c.is_uppercase()).count() >= TUNING.capitals_letters
        && letters.all(char::is_uppercase)
        && t.split_whitespace().count() <= TUNING.styled_words
}

/// Every significant word capitalised ("Results and Discussion").
pub(super) fn title_case(t: &str) -> bool {
    let words: Vec<&str> = t.split_whitespace().collect();
    if words.is_empty() || words.len() > TUNING.styled_words {
        return false;
    }
    let initials: Vec<char> = words
        .iter()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !TITLE_CASE_SMALL_WORDS.contains(&w.to_lowercase().as_str()))
        .filter_map(|w| w.chars().next().filter(|c| c.is_alphabetic()))
        .collect();
    // Lower case, or a script without case: not a capitalised word.
    !initials.is_empty() && initials.into_iter().all(char::is_uppercase)
}

/// Whether the mark at `i` is in a word: after a letter or digit
/// (`Stockholders’`), or between a letter and a mark of the word before
/// it (`C++’s`).
fn in_word(chars: &[char], i: usize) -> bool {
    let before = i.checked_sub(1).map(|j| chars[j]);
    let after = chars.get(i + 1);
    before.is_some_and(char::is_alphanumeric)
        || (before.is_some_and(|c| !c.is_whitespace())
            && after.is_some_and(|c| c.is_alphanumeric()))
}

/// A heading's text without the quote marks it opens and never closes
/// or closes and never opened (a manual's section named in quotes, its
/// closing mark lost): an apostrophe in a word stays. A typewriter's
/// straight quote opens where a word starts (`Event: 'close'`).
pub(super) fn without_stray_quotes(t: &str) -> String {
    let chars: Vec<char> = t.chars().collect();
    let mut keep = vec![true; chars.len()];
    let mut open: Vec<usize> = Vec::new();
    let opens_word = |i: usize| {
        let before = i.checked_sub(1).map(|j| chars[j]);
        before.is_none_or(|c| c.is_whitespace())
            && chars.get(i + 1).is_some_and(|c| c.is_alphanumeric())
    };
    for (i, &c) in chars.iter().enumerate() {
        if QUOTE_PAIRS.iter().any(|q| q.0 == c) || (c == '\'' && opens_word(i)) {
            open.push(i);
        } else if let Some(q) = QUOTE_PAIRS.iter().find(|q| q.1 == c) {
            let opener = |j: &usize| chars[*j] == q.0 || chars[*j] == c;
            match open.iter().rposition(opener) {
                Some(k) => drop(open.drain(k..)),
                None => keep[i] = APOSTROPHE.contains(c) && in_word(&chars, i),
            }
        }
    }
    open.into_iter().for_each(|j| keep[j] = false);
    let kept = chars.iter().zip(&keep).filter(|(_, k)| **k);
    kept.map(|(c, _)| *c).collect::<String>().trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::super::numbering::numbered_depth;
    use super::*;

    #[test]
    fn a_signature_heads_an_api_entry() {
        assert!(heading_text(
            "8.1 DocAssign(self, var, expr, life='forever')"
        ));
        assert!(heading_text("Image(filename, width=None, height=None)"));
        assert!(!heading_text("Total = price(1) + tax"));
        assert!(!heading_text("if (a == b) { run(); }"));
    }

    #[test]
    fn a_numbered_section_may_be_named_by_its_commands() {
        assert!(heading_text("3.1 \\attachfile[options]{filename}"));
        assert!(heading_text("3.5. \\xintDigits*, \\xintSetDigits*"));
        assert!(!heading_text("\\attachfile[options]{filename}"));
        assert!(!heading_text("3.1 {filename}"));
        assert!(!heading_text("1. \\usepackage{mathspec}"));
    }

    #[test]
    fn an_index_runs_in_alphabetical_order() {
        let run: Vec<(u32, char)> = "ABCDFG".chars().map(|c| (9, c)).collect();
        assert!(alphabet_runs(&run).iter().all(|&s| s));
        // Four in order, then a figure's "B" far away: none sure.
        let few = [(3, 'A'), (3, 'B'), (4, 'C'), (4, 'D'), (20, 'B')];
        assert!(alphabet_runs(&few).iter().all(|&s| !s));
        let broken = [(1, 'X'), (9, 'A'), (9, 'B'), (9, 'C'), (10, 'E'), (10, 'F')];
        assert_eq!(
            alphabet_runs(&broken),
            vec![false, true, true, true, true, true]
        );
    }

    fn body(text: &str) -> Line {
        Line {
            text: text.into(),
            size: 11.0,
            x: 72.0,
            end: 540.0,
            ..Line::default()
        }
    }
    #[test]
    fn a_list_items_number_is_told_from_other_numbers() {
        for t in ["2. it disables", "12) next", "(3) third", "(b) and"] {
            assert!(starts_with_enumerator(t), "{t}");
        }
        for t in [
            "2019. The year",
            "3.5 percent",
            "2.",
            "(iv) roman",
            "(B) capital",
            "x. no",
        ] {
            assert!(!starts_with_enumerator(t), "{t}");
        }
    }

    #[test]
    fn a_heading_loses_its_stray_quote_marks() {
        for (t, want) in [
            ("‘set missing value", "set missing value"),
            ("‘set missing value’", "‘set missing value’"),
            ("5.2 The “quoted” word", "5.2 The “quoted” word"),
            ("Stockholders’ Equity", "Stockholders’ Equity"),
            ("Notes” to it", "Notes to it"),
            ("”Notes", "Notes"),
            ("2.2 C++’s history", "2.2 C++’s history"),
            ("the ’s mark", "the s mark"),
            ("Event: 'close'", "Event: 'close'"),
            ("The users' guide", "The users' guide"),
            ("'Tis the season", "Tis the season"),
        ] {
            assert_eq!(without_stray_quotes(t), want);
        }
    }

    #[test]
    fn a_name_as_code_writes_it_may_start_a_heading_in_lower_case() {
        for h in [
            "rl.getCursorPos()#",
            "tracingChannel.traceSync(fn[, context[, thisArg[, ...args]]])#",
            "child_process.exec(command)",
            "worker.isMainThread",
            "tablor.sty",
            "git-am(1) Manual Page",
            "graphlib — Functionality to operate with graph-like structures",
        ] {
            assert!(heading_text(h), "{h}");
        }
        for t in [
            "the lower-case start",
            "e.g. the start",
            "i.e. a line",
            "etc. and so on",
            "gitCommitterEmail",
            "and — as it goes",
            "so — with all of it",
        ] {
            assert!(text_faults(t).lower_case, "{t}");
        }
    }

    #[test]
    fn heading_detection_rules() {
        for h in [
            "2.3 Results",
            "1 Introduction",
            "INSTALLATION NOTES",
            "Results and Discussion",
            "Chapter 3",
            "A. Proofs",
            "IV. Evaluation",
            "Why Search?",
            "3.2.1 学位信息",
            "Item 4. Controls and Procedures.",
            "6.1 The \\subref command",
            "L'environnement {NiceArrayWithDelims}",
            "PART I: Financial Information",
            "3.4.5 Uberschriften ¨",
        ] {
            assert!(heading_text(h), "{h}");
            assert!(
                numbered_depth(h).is_some() || all_caps(h) || title_case(h),
                "{h}"
            );
        }
        for not in [
            "This sentence ends with a period.",
            "the lower-case start of a line",
            "Figure 3 Distribution of latencies",
            "Table 2 Results",
            "1.2 Results . . . . . . 14",
            "12345 67890",
            "see http://example.com",
            "18 \\RecordChanges",
            "1 Introduction 2",
            "2.1.2 Options …",
            "论文作者签名：",
            "直接运行会调用引擎导致报错。如需指定编译引擎",
            "Receivables from",
            "U.S. GSEs and",
            "Item 3.",
            "\\documentclass{article}",
            "\\MoveEqLeft",
            "Activision Blizzard, Inc.",
            "x = f(y)",
            "FASB: Financial Accounting Standards Board",
            "U.S.: United States of America",
            "Shares of the Common Stock are listed for trading under the symbol “WMT.”",
            "Yes ☐ No ☒",
            "Emerging Growth Company ☐",
            "Loading Your Files ...",
        ] {
            let h = heading_text(not) && (numbered_depth(not).is_some() || title_case(not));
            assert!(!h, "{not}");
        }
        assert!(heading_text("−۱ ۱ مقدمه"));
        // A line of a script without case is neither all caps nor title case.
        assert!(!all_caps("离开山大之后，思思念念的是山大的美景"));
        assert!(!title_case("离开山大之后"));
        assert!(all_caps("ΠΕΡΙΛΗΨΗ") && !all_caps("ΠΕΡΙΛΗΨΗ 山大"));
        assert!(
            ends_sentence("之美。")
                && ends_sentence("他说：「好。」")
                && !ends_sentence("「山东大学堂」")
        );
        assert!(!title_case("Results were good"));
        assert!(title_case("Installing the Tools"));
        assert!(!all_caps("USA"), "too short to be a heading by case alone");
        assert!(is_date("February 27, 2019") && is_date("June 2021"));
        assert!(!is_date("March Madness") && !heading_text("January 29, 2018"));
        assert!(is_date("For the fiscal year ended December 31, 2022"));
        assert!(is_date("2016 年 3 月 20 日") && is_date("二〇二二年十月"));
        assert!(is_date("哈尔滨工业大学 2020 年 1 月") && !is_date("2020年工作总结"));
        assert!(!is_date("Events after May 2021") && !is_date("第一章 年月日"));
    }

    #[test]
    fn wrapped_lines_join_and_hyphens_are_undone() {
        let none = Hyphenation::default();
        let a = body("The quick extrac-");
        let b = body("tion of text and a well-");
        let c = body("known name in the Kpathsea-");
        let d = body("Bibliothek.");
        assert_eq!(
            join_lines(&[&a, &b, &c, &d], &none),
            "The quick extraction of text and a wellknown name in the Kpathsea-Bibliothek."
        );
        let toc = body("3.1 Package Options . . . . . . . . 3");
        assert_eq!(join_lines(&[&toc], &none), "3.1 Package Options … 3");
        let mut s = "soft\u{ad}".to_string();
        append_line(&mut s, "hyphen", &none);
        assert_eq!(s, "softhyphen");
        let mut s = "the variable R_".to_string();
        append_line(&mut s, "LIBS_USER is read", &none);
        assert_eq!(s, "the variable R_LIBS_USER is read");
        let caps = Hyphenation::of(&[super::super::page::Page {
            lines: vec![body("Set POINT_SIZE and NON-GAAP figures at Walmart.")],
            ..Default::default()
        }]);
        let mut s = "the property POIN-".to_string();
        append_line(&mut s, "T_SIZE is read", &caps);
        assert_eq!(s, "the property POINT_SIZE is read");
        let mut s = "NON-".to_string();
        append_line(&mut s, "GAAP net income", &caps);
        assert_eq!(s, "NON-GAAP net income");
        let mut s = "the Wal-".to_string();
        append_line(&mut s, "Mart name", &caps);
        assert_eq!(s, "the Wal-Mart name");
        let mut s = "a rule: _".to_string();
        append_line(&mut s, "next", &none);
        assert_eq!(s, "a rule: _ next");
    }

    #[test]
    fn a_compound_the_document_hyphenates_keeps_its_hyphen_at_a_line_end() {
        let page = |texts: &[&str]| super::super::page::Page {
            lines: texts.iter().map(|t| body(t)).collect(),
            ..Default::default()
        };
        let p = page(&[
            "Stock-based compensation grew.",
            "The stock-",
            "based awards and the infor-",
            "mation.",
        ]);
        let hyphens = Hyphenation::of(std::slice::from_ref(&p));
        let lines: Vec<&Line> = p.lines[1..].iter().collect();
        assert_eq!(
            join_lines(&lines, &hyphens),
            "The stock-based awards and the information."
        );
    }
}
