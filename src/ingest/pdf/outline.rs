//! A PDF's own outline (its bookmarks) as its headings: each bookmark
//! becomes the heading of the block it points at (the block of its title
//! at or below the height it points at, on its page), split off the text
//! it was joined to, or a heading line of its own inserted where the
//! bookmark points when no block carries its title. The headings inferred
//! from the layout then give way, except statement titles, which stay as
//! sub-headings of the bookmark they fall under: the author's outline is
//! the hierarchy, and a statement's rows are still cited under its name.

use super::block::Block;
use super::lexicon::lower_kept;
use super::numbering::number_ahead;
use super::page::OutlineEntry;
use super::statement::statement_line;
use super::tuning::TUNING;

/// Whether an outline is too thin to stand for the hierarchy: one or two
/// bookmarks in a long document (a title, "Cover"), or fewer than one per
/// 40 pages. The inferred headings then stay.
fn thin(bookmarks: usize, pages: u32) -> bool {
    (bookmarks < TUNING.thin_outline.0 && pages > TUNING.thin_outline.1)
        || (bookmarks as u64) * TUNING.pages_per_bookmark < u64::from(pages)
}

/// The bookmarks that stand for the hierarchy: none when the outline has
/// no bookmark on one of the `pages`, or is too thin.
pub(super) fn usable(outline: &[OutlineEntry], pages: u32) -> Vec<&OutlineEntry> {
    let entries: Vec<&OutlineEntry> = outline
        .iter()
        .filter(|e| e.page >= 1 && e.page <= pages && !key(&e.title).is_empty())
        .collect();
    if thin(entries.len(), pages) {
        return Vec::new();
    }
    entries
}

/// `blocks` with the outline's headings; unchanged when the outline has
/// no bookmark on one of the `pages`, or is too thin to be the hierarchy.
pub(super) fn apply(mut blocks: Vec<Block>, outline: &[OutlineEntry], pages: u32) -> Vec<Block> {
    let entries = usable(outline, pages);
    if entries.is_empty() {
        return blocks;
    }
    for b in &mut blocks {
        if !(b.level.is_some() && statement_line(&b.text).is_some()) {
            b.level = None;
        }
    }
    // Where each bookmark's heading is: a bookmark is looked for after the
    // one before it, or from its page's start where it points back to an
    // earlier page (a folded sheet's outline, in the order its panels are
    // read, not its pages').
    let mut placed: Vec<(usize, u8)> = Vec::with_capacity(entries.len());
    let mut from = 0;
    for e in entries {
        let level = e.level.clamp(1, TUNING.deepest_level);
        if from > 0 && blocks[from - 1].page > e.page {
            from = blocks.partition_point(|b| b.page < e.page);
        }
        let (i, inserted) = place(&mut blocks, e, from, level);
        for (at, _) in placed
            .iter_mut()
            .filter(|(at, _)| inserted.is_some_and(|n| *at >= n))
        {
            *at += 1;
        }
        placed.push((i, level));
        from = i + 1;
    }
    placed.sort_by_key(|&(at, _)| at);
    // Statement titles nest under the bookmark before them, unless it already
    // names the statement ("A-1 Condensed Consolidated Statement of Income"
    // over its own title, or over the title repeated on its next page).
    let mut parent: Option<(u8, String)> = None;
    let mut next = placed.iter().peekable();
    for (i, b) in blocks.iter_mut().enumerate() {
        if next.peek().is_some_and(|(at, _)| *at == i) {
            parent = next.next().map(|(_, l)| (*l, key(&b.text)));
            continue;
        }
        if b.level.is_some() {
            b.level = match &parent {
                Some((_, named))
                    if statement_line(&b.text).is_some_and(|(t, _)| named.contains(&key(&t))) =>
                {
                    None
                }
                Some((p, _)) => Some((p + 1).min(TUNING.deepest_level)),
                None => Some(1),
            };
        }
    }
    blocks
}

/// Makes the block where `e` starts its heading, at or after `from`, and
/// returns its index and where a block was inserted, if one was. A block that is the title alone (after its section
/// number: bookmarks often leave it out) is preferred to one that starts
/// with it, and blocks at or below the height the bookmark points at to
/// the rest of its page.
fn place(
    blocks: &mut Vec<Block>,
    e: &OutlineEntry,
    from: usize,
    level: u8,
) -> (usize, Option<usize>) {
    let on_page: Vec<usize> = (from..blocks.len())
        .filter(|&i| blocks[i].page == e.page)
        .collect();
    let above = TUNING.bookmark_above;
    let below = |i: &usize| e.top.is_none_or(|t| blocks[*i].top >= t - above);
    let carried = |i: &usize| (!blocks[*i].table).then(|| carries(&blocks[*i].text, &e.title));
    // The title alone first, then a block it starts; near first.
    let found = [(true, true), (true, false), (false, true), (false, false)]
        .into_iter()
        .find_map(|(near, whole)| {
            let fits = |i: &usize| {
                (!near || below(i)) && carried(i).flatten().is_some_and(|c| c.1 == whole)
            };
            let i = on_page.iter().copied().find(fits)?;
            Some((i, carried(&i).flatten()?.0))
        });
    if let Some((i, cut)) = found {
        let rest = blocks[i].text[cut..]
            .trim_start_matches(|c: char| c.is_whitespace() || c == ':' || c == '.')
            .to_string();
        blocks[i].text.truncate(cut);
        blocks[i].level = Some(level);
        if rest.is_empty() {
            return (i, None);
        }
        let body = Block {
            text: rest,
            level: None,
            ..blocks[i].clone()
        };
        blocks.insert(i + 1, body);
        return (i, Some(i + 1));
    }
    // No block carries the title: a heading of its own where the bookmark
    // points (its page's top when it names no height), not printed in the
    // page's text (a bookmark's "Text box overflow" over a page showing
    // `text_box_overflow.rb`; "SYNOPSIS" between a command and its options),
    // in no type on the page,
    // so never taken for the document's title over the page's own (a bookmark
    // "Introduction Summary" over a release titled "Company Reports
    // First-Quarter Results").
    let at = on_page.iter().copied().find(below).unwrap_or_else(|| {
        on_page.last().map_or_else(
            || from + blocks[from..].partition_point(|b| b.page < e.page),
            |l| l + 1,
        )
    });
    let heading = Block {
        page: e.page,
        text: e.title.clone(),
        level: Some(level),
        top: e.top.unwrap_or(0.0),
        unprinted: true,
        ..Block::default()
    };
    blocks.insert(at, heading);
    (at, Some(at))
}

/// Where the heading for `title` ends in a block's `text` (its byte
/// offset), and whether it is the whole block; none when the block does not
/// start with the title (after a section number, which bookmarks often
/// leave out), or only as a sentence's first words ("Reserved words are
/// ..." under "Reserved Words").
fn carries(text: &str, title: &str) -> Option<(usize, bool)> {
    let wanted = key(title);
    let (label, number) = number_ahead(text);
    let skip = [0, label, number]
        .into_iter()
        .find(|&at| key(&text[at..]).starts_with(&wanted))?;
    // Counted in characters as `split_at` counts them (a CJK title's
    // bytes are three times as many).
    let mut cut = skip + split_at(&text[skip..], wanted.chars().count())?;
    // The title's closing marks stay with it as printed (`main'` is `main’`).
    let closed = title.trim_end().ends_with(|c: char| !c.is_alphanumeric());
    let run = text[cut..].split(char::is_whitespace).next().unwrap_or("");
    if closed && run.chars().all(|c| !c.is_alphanumeric()) {
        cut += run.len();
    }
    let rest = text[cut..].trim_start_matches(|c: char| c.is_whitespace() || c == ':' || c == '.');
    let letters = |t: &str| {
        t.chars()
            .filter(|c| c.is_alphanumeric())
            .collect::<String>()
    };
    let as_titled = letters(&text[skip..cut]) == letters(title);
    let goes_on =
        rest.starts_with([',', ';', ')']) || (rest.starts_with(char::is_lowercase) && !as_titled);
    (!goes_on).then_some((cut, rest.is_empty()))
}

/// A title's letters and digits, lowercased: how a bookmark is matched to
/// the text on its page whatever the spacing, punctuation or case.
fn key(t: &str) -> String {
    lower_kept(t, |c| c.is_alphanumeric())
}

/// The byte offset in `text` after its first `n` letters and digits (as
/// `key` counts them), when a word ends there; the rest of the block is text.
fn split_at(text: &str, n: usize) -> Option<usize> {
    let mut seen = 0;
    for (i, c) in text.char_indices() {
        if seen == n {
            return (!c.is_alphanumeric()).then_some(i);
        }
        if c.is_alphanumeric() {
            seen += c.to_lowercase().count();
        }
    }
    (seen == n).then_some(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(page: u32, text: &str, top: f32) -> Block {
        Block {
            page,
            text: text.into(),
            level: None,
            size: 11.0,
            top,
            x: 0.0,
            ..Block::default()
        }
    }

    fn entry(title: &str, level: u8, page: u32, top: Option<f32>) -> OutlineEntry {
        OutlineEntry {
            title: title.into(),
            level,
            page,
            top,
        }
    }

    fn headings(blocks: &[Block]) -> Vec<(u32, String, u8)> {
        blocks
            .iter()
            .filter_map(|b| b.level.map(|l| (b.page, b.text.clone(), l)))
            .collect()
    }

    #[test]
    fn bookmarks_become_the_headings_where_they_point() {
        let mut inferred = block(1, "Chapter 1 Introduction", 30.0);
        inferred.level = Some(1);
        let blocks = vec![
            inferred,
            block(1, "Contents", 80.0),
            block(1, "1 Planting ..... 2", 100.0),
            block(2, "1 Planting? Plant trees in spring.", 100.0),
            block(2, "More about planting.", 130.0),
            block(2, "Soil matters a lot.", 300.0),
            block(3, "Pruning is done in winter.", 100.0),
        ];
        let outline = vec![
            entry("1 Planting?", 1, 2, Some(96.0)),
            entry("1.1 Soil", 2, 2, Some(290.0)),
            entry("2 Pruning", 1, 3, None),
        ];
        let out = apply(blocks, &outline, 3);
        assert_eq!(
            headings(&out),
            vec![
                (2, "1 Planting?".to_string(), 1),
                (2, "1.1 Soil".to_string(), 2),
                (3, "2 Pruning".to_string(), 1),
            ]
        );
        let text: Vec<&str> = out.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(
            text,
            vec![
                "Chapter 1 Introduction",
                "Contents",
                "1 Planting ..... 2",
                "1 Planting?",
                "Plant trees in spring.",
                "More about planting.",
                "1.1 Soil",
                "Soil matters a lot.",
                "2 Pruning",
                "Pruning is done in winter.",
            ]
        );
    }

    /// An outline in another order than its pages (a folded sheet's, its
    /// panels read 1, 3, 2): a bookmark pointing back to an earlier page
    /// is found on that page, not inserted where the one before it was.
    #[test]
    fn a_bookmark_pointing_back_is_found_on_its_page() {
        let blocks = vec![
            block(1, "Classes", 40.0),
            block(1, "Some classes of documents.", 60.0),
            block(1, "Tables", 300.0),
            block(1, "How tables are set.", 320.0),
            block(2, "Structure", 40.0),
            block(2, "Parts, chapters and sections.", 60.0),
        ];
        let outline = vec![
            entry("Classes", 1, 1, Some(36.0)),
            entry("Structure", 1, 2, Some(36.0)),
            entry("Tables", 1, 1, Some(296.0)),
        ];
        let out = apply(blocks, &outline, 2);
        assert_eq!(
            headings(&out),
            vec![
                (1, "Classes".to_string(), 1),
                (1, "Tables".to_string(), 1),
                (2, "Structure".to_string(), 1),
            ]
        );
        assert_eq!(out.len(), 6, "no heading inserted: {out:?}");
        assert!(out.iter().all(|b| !b.unprinted));
    }

    /// A bookmark that leaves out the number printed before its title
    /// finds the printed line whatever the title's case (`accumulate`),
    /// with or without its label (`Chapter 19`, `Part I`): no heading of
    /// its own is inserted.
    #[test]
    fn a_bookmark_finds_its_title_after_a_printed_number_or_label() {
        let blocks = vec![
            block(1, "Chapter 19 The STL Generic Algorithms", 219.0),
            block(1, "Generic algorithms perform a task.", 260.0),
            block(3, "19.1.1 accumulate", 135.0),
            block(3, "Header file: numeric", 164.0),
            block(4, "Part I User guide", 100.0),
        ];
        let outline = vec![
            entry("The STL Generic Algorithms", 1, 1, Some(116.0)),
            entry("accumulate", 3, 3, Some(116.0)),
            entry("I User guide", 1, 4, Some(90.0)),
        ];
        let out = apply(blocks, &outline, 4);
        assert_eq!(
            headings(&out),
            vec![
                (1, "Chapter 19 The STL Generic Algorithms".to_string(), 1),
                (3, "19.1.1 accumulate".to_string(), 3),
                (4, "Part I User guide".to_string(), 1),
            ]
        );
        assert_eq!(out.len(), 5, "no heading inserted: {out:?}");
    }

    #[test]
    fn a_title_is_matched_whole_words_only_and_statements_nest() {
        let mut statement = block(1, "CONSOLIDATED BALANCE SHEETS", 300.0);
        statement.level = Some(3);
        let blocks = vec![
            block(1, "Item 1A. Risk Factors", 100.0),
            block(1, "Item 1. Business", 200.0),
            statement,
        ];
        let out = apply(blocks, &[entry("Item 1", 1, 1, None)], 1);
        assert_eq!(
            headings(&out),
            vec![
                (1, "Item 1".to_string(), 1),
                (1, "CONSOLIDATED BALANCE SHEETS".to_string(), 2),
            ]
        );
        assert_eq!(out[2].text, "Business");
        // A bookmark that names the statement is its heading already.
        let mut again = block(
            2,
            "Condensed Consolidated Balance Sheet (in millions)",
            100.0,
        );
        again.level = Some(3);
        let out = apply(
            vec![block(1, "Intro", 100.0), again],
            &[entry(
                "A-5 Condensed Consolidated Balance Sheet",
                1,
                1,
                None,
            )],
            2,
        );
        assert_eq!(
            headings(&out),
            vec![(1, "A-5 Condensed Consolidated Balance Sheet".to_string(), 1)]
        );
        // A title in a script of three bytes a letter is cut after its
        // letters, not after as many bytes.
        let blocks = vec![block(1, "3.2.1 学位选项 bachelor 硕士", 100.0)];
        let out = apply(blocks, &[entry("3.2.1 学位选项", 1, 1, None)], 1);
        assert_eq!(headings(&out), vec![(1, "3.2.1 学位选项".to_string(), 1)]);
        assert_eq!(out[1].text, "bachelor 硕士");
    }

    #[test]
    fn a_bookmark_finds_its_numbered_heading_not_a_sentence_that_starts_alike() {
        let blocks = vec![
            block(
                1,
                "• Transaction properties, which include atomicity.",
                80.0,
            ),
            block(1, "3.2.1 Reserved Words", 100.0),
            block(
                1,
                "Reserved words are words that have special meaning.",
                120.0,
            ),
            block(
                2,
                "Job control refers to the ability to stop processes.",
                100.0,
            ),
            block(2, "1.5.1 Transaction Properties", 200.0),
        ];
        let outline = [
            entry("Reserved Words", 1, 1, Some(100.0)),
            entry("Transaction Properties", 1, 2, Some(190.0)),
        ];
        let out = apply(blocks.clone(), &outline, 2);
        assert_eq!(
            headings(&out),
            vec![
                (1, "3.2.1 Reserved Words".to_string(), 1),
                (2, "1.5.1 Transaction Properties".to_string(), 1),
            ]
        );
        let text = |b: &[Block]| b.iter().map(|b| b.text.clone()).collect::<Vec<_>>();
        assert_eq!(text(&out), text(&blocks), "no text added or split");
        // A sentence that starts with the title is no heading, even where
        // the bookmark points.
        let out = apply(
            blocks[3..4].to_vec(),
            &[entry("Job Control", 1, 2, None)],
            2,
        );
        assert_eq!(out.last().unwrap().text, blocks[3].text);
    }

    /// A title's closing quote or mark is the page's, in the page's type.
    #[test]
    fn a_titles_closing_marks_stay_as_printed() {
        assert_eq!(
            carries("2.5.1 The function ‘main’", "The function `main'"),
            Some((29, true))
        );
        assert_eq!(carries("Why? Because", "Why?"), Some((4, false)));
        assert_eq!(
            carries("Reserved Words.", "Reserved Words"),
            Some((14, true))
        );
    }

    /// A bookmark no block carries is a heading line of the outline's, not
    /// the page's: the page's own title in display type names the document.
    #[test]
    fn an_inserted_bookmark_is_not_the_documents_title() {
        let title = Block {
            size: 16.0,
            ..block(1, "Orchard Reports First-Quarter 2023 Results", 150.0)
        };
        let body = "Orchard today reported results for the first quarter, with net revenue up ten percent.";
        let blocks = vec![
            title,
            block(1, body, 200.0),
            block(1, body, 230.0),
            block(2, "Outlook", 100.0),
            block(2, body, 130.0),
        ];
        let outline = [
            entry("Introduction Summary", 1, 1, Some(140.0)),
            entry("Outlook", 1, 2, None),
        ];
        // The title is chosen before the bookmarks are placed.
        assert_eq!(
            super::super::title::choose_title(None, &blocks).as_deref(),
            Some("Orchard Reports First-Quarter 2023 Results")
        );
        let out = apply(blocks, &outline, 2);
        assert_eq!(
            headings(&out)[0],
            (1, "Introduction Summary".to_string(), 1)
        );
    }

    #[test]
    fn a_thin_outline_leaves_the_inferred_headings() {
        let mut h = block(1, "Heading", 10.0);
        h.level = Some(2);
        let one = [entry("Cover", 1, 1, None)];
        assert_eq!(apply(vec![h.clone()], &one, 200), vec![h.clone()]);
        assert!(thin(2, 11) && thin(4, 200) && !thin(5, 200) && !thin(1, 3));
    }

    #[test]
    fn bookmarks_off_the_pages_leave_the_blocks_alone() {
        let mut h = block(1, "Heading", 10.0);
        h.level = Some(2);
        let out = apply(vec![h.clone()], &[entry("Gone", 1, 9, None)], 1);
        assert_eq!(out, vec![h]);
    }
}
