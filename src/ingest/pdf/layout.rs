//! From laid-out lines to paragraphs and headings: running headers and
//! page numbers dropped, lines grouped into blocks at vertical gaps, font
//! changes, short sentence-ending lines, first-line indents and bullets;
//! wrapped lines joined and words hyphenated at line ends rejoined; short
//! standalone blocks that look like headings (larger font, bold, numbered
//! like `2.3 Results`, ALL CAPS or Title Case) given a level. Table rows
//! stay one line each, in a block of their own with the caption above
//! them.

use std::collections::HashSet;

use super::block::Block;
use super::contents::{contents_pages, contents_title};
use super::filing::{is_filing_heading, is_part, FilingNesting};
use super::furniture::strip_running_lines;
use super::grouping::{
    body_size, bold_share, cells_beside, group_lines, indented_cjk_paragraph, mark_beside,
    mean_size, wrap_margins,
};
use super::monospace::code_text;
use super::numbering::{chapter_label, item_heading, numbered_depth};
use super::page::{Line, Page};
use super::statement::{caption, statement_line, statement_title};
use super::text_shape::{
    all_caps, alphabet_runs, heading_text, index_group, index_letter, join_lines, title_case,
};
use super::tuning::TUNING;
use demote::{
    drop_cover_lines, drop_out_of_count, drop_section_marks, drop_signature_places, drop_signers,
    drop_stray_initials,
};
use emphasis::{emphasis_rank, names_in_capitals, Emphasis};

/// Blocks of every page, in reading order.
pub(super) fn blocks(pages: &[Page]) -> Vec<Block> {
    let mut lines: Vec<Vec<Line>> = pages.iter().map(|p| p.lines.clone()).collect();
    let body = body_size(&lines);
    strip_running_lines(&mut lines, body);
    let contents = contents_pages(&lines);
    // A contents page lists headings from its first entry to its last:
    // they are not headings there, whatever their shape (a statement's
    // name too).
    let listed = |page: u32, y: f32| contents.get(&page).is_some_and(|l| l.contains(&y));
    // Bold says nothing where most of the text is bold (a font that
    // reports a heavy weight for every glyph).
    let bold_body = bold_share(&lines) > TUNING.bold_body_share;
    let mut raw: Vec<(u32, Vec<&Line>)> = Vec::new();
    for (i, page) in lines.iter().enumerate() {
        for group in group_lines(page) {
            raw.push((i as u32 + 1, group));
        }
    }
    // Each group's text, its lines joined once; a table's rows and a
    // listing's lines stay apart, so theirs is left empty.
    let texts: Vec<String> = raw
        .iter()
        .map(|(_, g)| {
            if g[0].table || g[0].mono {
                String::new()
            } else {
                join_lines(g)
            }
        })
        .collect();
    let big = |size: f32| size >= body * TUNING.larger_ratio && size >= body + TUNING.larger_points;
    let mut candidates: Vec<f32> = Vec::new();
    for ((_, g), text) in raw.iter().zip(&texts) {
        let size = mean_size(g);
        if big(size)
            && g.len() <= TUNING.heading_lines
            && !g[0].table
            && !g[0].mono
            && heading_text(text)
        {
            candidates.push(size);
        }
    }
    let heading_sizes = heading_sizes(candidates);
    let margins = wrap_margins(&raw);
    let names = names_in_capitals(&raw, &texts);
    let below_fonts = heading_sizes.len().min(TUNING.font_levels) as u8 + 1;

    let mut out: Vec<Block> = Vec::with_capacity(raw.len());
    // The lines of the last two blocks of prose, for a statement's title.
    let mut last_lines: [Vec<String>; 2] = Default::default();
    // The page of the last statement or table title, and the level of a
    // financial statement's: the row groups under it ("Assets", "Current
    // liabilities") are its subsections, not its siblings, on its page
    // and the next.
    let mut statement: Option<(u32, Option<u8>)> = None;
    // The level and depth of the last numbered heading: `7.37` nests under
    // `7` by their numbers, whatever their fonts.
    let mut numbered: Option<(u8, u8)> = None;
    // The level of the filing item the text is in: its unnumbered
    // sub-headings ("Liquidity and Capital Resources") nest under
    // "Item 7.".
    let mut item: Option<u8> = None;
    let mut filing = FilingNesting::default();
    // The level of the last heading other than an index's letter: the
    // letters nest right under the index's heading.
    let mut above_letters: Option<u8> = None;
    // Body-font headings rank among themselves by emphasis: slightly
    // larger type, then capitals, then the rest. Under one, a heading of
    // a lower rank is its sub-heading ("MARKET OVERVIEW" > "Digital
    // Media", a 10pt "Wireless" > a 9pt "Wireless Services") until a
    // heading of another kind comes.
    let mut emphasis = Emphasis::default();
    // A statement's title sits under the item it is in (Item 8.).
    let statement_level = |item: Option<u8>| item.map_or(below_fonts, |i| below_fonts.max(i + 1));
    // An index's groups: its letters, and "Symbols" and "Numbers" on
    // the pages of its letters.
    let mut letters: Vec<bool> = raw
        .iter()
        .enumerate()
        .map(|(i, (page, g))| {
            let next = raw.get(i + 1).filter(|(p, _)| p == page);
            g.len() == 1 && index_letter(g[0], next.map(|(_, n)| n[0]))
        })
        .collect();
    let index_pages: HashSet<u32> = raw
        .iter()
        .zip(&letters)
        .filter_map(|((page, _), &l)| l.then_some(*page))
        .collect();
    for ((page, g), l) in raw.iter().zip(letters.iter_mut()) {
        *l |= g.len() == 1 && index_pages.contains(page) && index_group(&g[0].text);
    }
    // Letters in alphabetical order need no larger or bolder type.
    let candidates: Vec<(u32, char)> = raw
        .iter()
        .zip(&letters)
        .filter(|(_, &l)| l)
        .map(|((page, g), _)| (*page, g[0].text.trim().chars().next().unwrap_or(' ')))
        .collect();
    let mut sure = alphabet_runs(&candidates).into_iter();
    let alphabetical: Vec<bool> = letters
        .iter()
        .map(|&l| l && sure.next().unwrap_or(false))
        .collect();
    for ((((page, g), letter), text), alphabetical) in
        raw.into_iter().zip(letters).zip(texts).zip(alphabetical)
    {
        let ocr = pages[page as usize - 1].ocr;
        let size = mean_size(&g);
        // A block of this group's page, type and place.
        let here = |text: String, level: Option<u8>| Block {
            page,
            text,
            level,
            size,
            top: g[0].y,
            x: g[0].x,
            table: false,
            code: false,
            ocr,
        };
        if g[0].mono {
            out.push(Block {
                code: true,
                ..here(code_text(&g), None)
            });
            continue;
        }
        if g.first().is_some_and(|l| l.table) {
            let rows: Vec<&str> = g.iter().map(|l| l.text.as_str()).collect();
            let mut text = rows.join("\n");
            let headers = column_headers(&mut out, page, &g);
            if !headers.is_empty() {
                text = format!("{}\n{text}", headers.join("\n"));
            }
            // The caption right above the table goes with it: a `Table 3`
            // line, or the short lines that title a statement
            // ("CONSOLIDATED BALANCE SHEETS", "(Amounts in millions)"),
            // whose title line heads the table as a heading.
            // The units and dateline between a statement's title and its
            // table ("(Amounts in millions)", "Years Ended December 31,")
            // belong to the table.
            let lead = statement_lead(&out, page);
            if lead > 0 {
                let lines: Vec<String> = out.drain(out.len() - lead..).map(|b| b.text).collect();
                text = format!("{}\n{text}", lines.join("\n"));
            } else if let Some(prev) = out
                .last()
                .filter(|b| b.page == page && !b.table && b.level.is_none())
            {
                if caption(&prev.text) {
                    text = format!("{}\n{text}", prev.text);
                    out.pop();
                } else if let Some((title, rest)) =
                    statement_title(&last_lines[1]).filter(|_| !listed(page, prev.top))
                {
                    let prev = out.pop().unwrap_or_else(|| unreachable!());
                    let level =
                        filing.place(&title, statement_level(item), &mut item, &mut numbered);
                    statement = Some((page, statement_line(&title).map(|_| level)));
                    out.push(Block {
                        level: Some(level),
                        text: title,
                        ..prev
                    });
                    if !rest.is_empty() {
                        text = format!("{rest}\n{text}");
                    }
                } else if prev.text.split_whitespace().count() <= TUNING.dateline_words
                    && out.len() >= 2
                {
                    // A dateline between the title and its table ("Years
                    // Ended December 31,").
                    let before = &out[out.len() - 2];
                    if before.page == page
                        && !before.table
                        && before.level.is_none()
                        && !listed(page, before.top)
                    {
                        if let Some((title, rest)) = statement_title(&last_lines[0]) {
                            let dateline = out.pop().unwrap_or_else(|| unreachable!());
                            let block = out.pop().unwrap_or_else(|| unreachable!());
                            let level = filing.place(
                                &title,
                                statement_level(item),
                                &mut item,
                                &mut numbered,
                            );
                            statement = Some((page, statement_line(&title).map(|_| level)));
                            out.push(Block {
                                level: Some(level),
                                text: title,
                                ..block
                            });
                            let lead = [rest.as_str(), dateline.text.as_str()]
                                .iter()
                                .filter(|s| !s.is_empty())
                                .copied()
                                .collect::<Vec<_>>()
                                .join("\n");
                            text = format!("{lead}\n{text}");
                        }
                    }
                }
            }
            out.push(Block {
                table: true,
                ..here(text, None)
            });
            continue;
        }
        last_lines.swap(0, 1);
        last_lines[1] = g.iter().map(|l| l.text.clone()).collect();
        // A financial statement's title heads what follows wherever its
        // table starts: "CONSOLIDATED STATEMENTS OF OPERATIONS (Amounts in
        // millions)", its units split off as text of their own.
        // The company's name may stand over it in the same block, in the
        // text's type ("CITYCENTER HOLDINGS, LLC" / "CONSOLIDATED
        // STATEMENTS OF CASH FLOWS" / "(In thousands)"): it goes under the
        // title, with the units.
        let named = if listed(page, g[0].y) {
            None
        } else {
            (0..g.len().min(2))
                .filter(|&at| match at {
                    0 => g.len() <= TUNING.statement_title_lines,
                    _ => {
                        g.len() <= TUNING.statement_title_lines + 1
                            && !big(size)
                            && company_line(&g[0].text)
                    }
                })
                .find_map(|at| statement_line(&g[at].text).map(|(title, units)| (at, title, units)))
        };
        if let Some((at, title, units)) = named {
            let level = filing.place(&title, statement_level(item), &mut item, &mut numbered);
            statement = Some((page, Some(level)));
            out.push(here(title, Some(level)));
            let rest: Vec<&str> = g[..at]
                .iter()
                .map(|l| l.text.as_str())
                .chain(std::iter::once(units.as_str()))
                .chain(g[at + 1..].iter().map(|l| l.text.as_str()))
                .filter(|s| !s.is_empty())
                .collect();
            if !rest.is_empty() {
                out.push(here(rest.join(" "), None));
            }
            last_lines[1].clear();
            continue;
        }
        let bold = !bold_body && g.iter().all(|l| l.bold);
        // Set for a body-font heading: its rank of emphasis.
        let mut body_rank: Option<usize> = None;
        // Smaller than the body: a footnote ("4 譬如…"), a caption or a
        // figure's label, never a heading.
        let small = size < body * TUNING.smaller_ratio;
        let letter = letter && (bold || big(size) || alphabetical);
        let listed_here = listed(page, g[0].y) && !contents_title(&text);
        let paragraph = g.len() == 1
            && numbered_depth(&text).is_none()
            && indented_cjk_paragraph(g[0], margins[(page % 2) as usize]);
        // A paragraph of one line at its first-line indent is text, and so
        // is a table's row whose cells stand apart on its baseline.
        let (page_lines, gutter) = (&lines[page as usize - 1], pages[page as usize - 1].gutter);
        let row = !letter
            && !contents_title(&text)
            && ((g.len() == 1 && cells_beside(page_lines, gutter, g[0]) >= TUNING.row_cells)
                || (g.len() <= TUNING.heading_lines && mark_beside(page_lines, gutter, g[0])));
        let text_only = small || listed_here || paragraph || row;
        let level =
            if g.len() > TUNING.heading_lines || text_only || !(letter || heading_text(&text)) {
                None
            } else if letter {
                Some(above_letters.map_or(below_fonts, |l| l + 1))
            } else if big(size) {
                // The font size ranks headings; it wins over numbering,
                // which documents often restart or flatten.
                // A size left out of the ranks sits with the ranked size
                // below it.
                let rank = heading_sizes
                    .iter()
                    .position(|s| (s - size).abs() < TUNING.same_size_points)
                    .unwrap_or_else(|| heading_sizes.iter().filter(|&&s| s > size).count());
                let level = rank as u8 + 1;
                statement = None;
                match numbered_depth(&text) {
                    Some(d) => numbered = Some((level, d)),
                    None if numbered.is_some_and(|(l, _)| level <= l) => numbered = None,
                    None => {}
                }
                item = item_heading(&text).then_some(level);
                Some(level)
            } else if g.len() > 1 && !wrapped_item(&text, bold) {
                None
            } else if let Some(d) = numbered_depth(&text) {
                // Nested by its numbering under the last numbered heading, or
                // below every larger-font heading.
                statement = None;
                let level = match numbered {
                    Some((l, d0)) => (l + d).saturating_sub(d0).max(1),
                    None => below_fonts - 1 + d,
                };
                numbered = Some((level, d));
                item = item_heading(&text).then_some(level);
                Some(level)
            } else if leads_with_a_word(&text)
                && (all_caps(&text) || title_case(&text) || (bold && short_line(&text)))
            {
                let under_statement = statement
                    .filter(|&(p, _)| page <= p + 1)
                    .filter(|_| !text.to_lowercase().starts_with("notes to"));
                if under_statement.is_none() {
                    statement = None;
                }
                let rank = emphasis_rank(&text, size, body, &names);
                body_rank = Some(rank);
                let under_item = |level: u8| item.map_or(level, |i| level.max(i + 1));
                Some(match under_statement {
                    Some((_, Some(statement_level))) => statement_level + 1,
                    Some((_, None)) => under_item(below_fonts + 1),
                    None => under_item(below_fonts) + emphasis.above(rank),
                })
            } else {
                None
            };
        let level = level.map(|l| filing.place(&text, l, &mut item, &mut numbered));
        if !letter && level.is_some() {
            above_letters = level;
        }
        if level.is_some() {
            match body_rank {
                Some(rank) if !is_filing_heading(&text) => emphasis.open(rank),
                _ => emphasis = Emphasis::default(),
            }
        } else if text.split_whitespace().count() >= TUNING.prose_words {
            // Prose after a statement's table: the headings after it are
            // the discussion's, not the statement's row groups.
            if statement.is_some_and(|(_, named)| named.is_some()) {
                statement = None;
            }
        }
        out.push(here(text, level));
    }
    if let Some(top) = filing.cover_level() {
        for b in out
            .iter_mut()
            .take_while(|b| !(b.level.is_some() && is_part(&b.text)))
        {
            if let Some(l) = b.level.as_mut() {
                *l = (*l).max(top);
            }
        }
    }
    drop_section_marks(&mut out, pages);
    drop_signature_places(&mut out);
    drop_signers(&mut out);
    drop_stray_initials(&mut out);
    drop_out_of_count(&mut out);
    join_chapter_labels(&mut out);
    rank_levels(&mut out);
    out
}

/// Heading font sizes, largest first: their rank is the heading level.
/// Where there are more than levels to give (a page of font samples, a
/// cover's one-off sizes over a thesis's five levels), only the sizes of
/// at least three headings rank: else each sample would push the real
/// levels down until they all sat at the sixth.
fn heading_sizes(mut sizes: Vec<f32>) -> Vec<f32> {
    sizes.sort_by(|a, b| b.total_cmp(a));
    let mut counted: Vec<(f32, usize)> = Vec::new();
    for size in sizes {
        match counted.last_mut() {
            Some((s, n)) if (*s - size).abs() < TUNING.same_size_points => *n += 1,
            _ => counted.push((size, 1)),
        }
    }
    let frequent: Vec<f32> = counted
        .iter()
        .filter(|&&(_, n)| n >= TUNING.frequent_size_headings)
        .map(|&(s, _)| s)
        .collect();
    if counted.len() > TUNING.font_levels && !frequent.is_empty() {
        frequent
    } else {
        counted.into_iter().map(|(s, _)| s).collect()
    }
}

/// A chapter's label on a line of its own over its title ("Part I" over
/// "Getting started", "第一章" over "绪论") is one heading with the title:
/// alone it would head an empty section beside its own chapter. A
/// filing's "PART I" holds its items: the title must rank as high as the
/// label and not be numbered.
fn join_chapter_labels(blocks: &mut Vec<Block>) {
    let mut i = 0;
    while i + 1 < blocks.len() {
        let (label, title) = (&blocks[i], &blocks[i + 1]);
        let join = chapter_label(&label.text)
            && title.page == label.page
            && label.level.zip(title.level).is_some_and(|(l, t)| t <= l)
            && numbered_depth(&title.text).is_none();
        if join {
            let label = blocks.remove(i);
            let title = &mut blocks[i];
            title.text = format!("{} {}", label.text, title.text);
            title.top = label.top;
        }
        i += 1;
    }
}

/// The headings of a title page that head nothing: the document's title
/// and what is set above it on its first page, and the subtitle right
/// under a title that is no heading, where their type is larger than
/// every later heading's; and the lines around them (`drop_cover_lines`).
/// Their levels go, and the levels below move up.
pub(super) fn drop_title_page_headings(blocks: &mut [Block], title: Option<&str>) {
    let first_page = blocks.first().map(|b| b.page);
    let on_first = |b: &Block| Some(b.page) == first_page;
    if let Some(t) = blocks
        .iter()
        .position(|b| on_first(b) && title == Some(b.text.as_str()))
    {
        let subtitle = blocks[t].level.is_none()
            && blocks
                .get(t + 1)
                .is_some_and(|b| b.level.is_some() && on_first(b));
        let end = t + 1 + usize::from(subtitle);
        // A lone heading heads the text under it, title or not.
        let below = blocks[end..]
            .iter()
            .filter(|b| b.level.is_some())
            .map(|b| b.size)
            .reduce(f32::max);
        if let Some(below) = below {
            for b in blocks[..end].iter_mut() {
                if b.size > below + TUNING.title_page_points {
                    b.level = None;
                }
            }
        }
    }
    drop_cover_lines(blocks, title);
    rank_levels(blocks);
}

/// Levels renumbered as ranks from 1: a cover's large type or a filing's
/// parts leave no unused level above the text's own, so nesting six deep
/// is not cut off ("NOTE 1." > "Basis of Presentation" under "PART II >
/// ITEM 8." stay two levels).
fn rank_levels(blocks: &mut [Block]) {
    let mut used: Vec<u8> = blocks.iter().filter_map(|b| b.level).collect();
    used.sort_unstable();
    used.dedup();
    for l in blocks.iter_mut().filter_map(|b| b.level.as_mut()) {
        let rank = used.partition_point(|u| u < l);
        *l = (rank as u8 + 1).min(TUNING.deepest_level);
    }
}

/// The headings right over a table, in its type, that stand over its
/// columns and not at its left ("Fair Value" over "Level 1 … Total",
/// "Carrying" over "Amount"): a column's header set apart from the
/// table's rows, which as a heading would cite the table under
/// "Carrying". Taken from the end of `out`, in reading order. A lone
/// line centred over the table is its title; a numbered line, a contents
/// title and an index's letter or group head what follows.
fn column_headers(out: &mut Vec<Block>, page: u32, rows: &[&Line]) -> Vec<String> {
    let left = rows.iter().map(|l| l.x).fold(f32::MAX, f32::min);
    let right = rows.iter().map(|l| l.end).fold(f32::MIN, f32::max);
    let size = rows.iter().map(|l| l.size).fold(0.0, f32::max);
    let width = right - left;
    let mut top = rows[0].y;
    let mut n = 0;
    for b in out.iter().rev() {
        let header = b.page == page
            && b.level.is_some()
            && !b.table
            && b.size <= size + TUNING.column_header_points
            && b.text.split_whitespace().count() <= TUNING.column_header_words
            && b.text.chars().count() > 1
            && b.x >= left + TUNING.column_header_indent * width
            && b.top < top
            && top - b.top <= TUNING.column_header_gap * b.size
            && numbered_depth(&b.text).is_none()
            && !contents_title(&b.text)
            && !index_group(&b.text);
        if !header {
            break;
        }
        top = b.top;
        n += 1;
    }
    if n == 1 {
        let b = &out[out.len() - 1];
        // The line's centre, estimated from its characters at half an em.
        let centre = b.x + TUNING.half_char_width * b.size * b.text.chars().count() as f32;
        if (centre - (left + right) / 2.0).abs() < TUNING.centred_share * width {
            return Vec::new();
        }
    }
    out.drain(out.len() - n..).map(|b| b.text).collect()
}

/// How many short blocks at the end of `out` sit between a statement's
/// title heading and the table starting on `page`: at most two, each of
/// at most twelve words.
fn statement_lead(out: &[Block], page: u32) -> usize {
    for lead in 1..=TUNING
        .statement_lead_blocks
        .min(out.len().saturating_sub(1))
    {
        let between = &out[out.len() - lead..];
        let short = |b: &Block| {
            b.page == page
                && !b.table
                && b.level.is_none()
                && b.text.split_whitespace().count() <= TUNING.statement_lead_words
        };
        if !between.iter().all(short) {
            return 0;
        }
        let title = &out[out.len() - lead - 1];
        if title.page == page && title.level.is_some() && statement_line(&title.text).is_some() {
            return lead;
        }
    }
    0
}

/// A bold line short enough to be a heading rather than a bold sentence
/// (in words, or in characters for a script written without spaces).
/// Starts with a word: letters, a word with digits in it ("5G
/// Deployment"), or a year ahead of others ("2021 Compared to 2020").
fn leads_with_a_word(t: &str) -> bool {
    let mut words = t.split_whitespace();
    let first = words.next().unwrap_or("");
    let year = first.len() == 4
        && (first.starts_with("19") || first.starts_with("20"))
        && first.chars().all(|c| c.is_ascii_digit());
    first.starts_with(char::is_alphabetic)
        || (first.starts_with(|c: char| c.is_ascii_digit())
            && first.chars().any(char::is_alphabetic))
        || (year && words.next().is_some())
}

/// A filing's item whose title wraps onto a second line, set in capitals
/// or bold ("ITEM 7. MANAGEMENT'S DISCUSSION AND ANALYSIS OF FINANCIAL
/// CONDITION AND RESULTS OF" / "OPERATIONS").
fn wrapped_item(t: &str, bold: bool) -> bool {
    item_heading(t) && (bold || !t.chars().any(char::is_lowercase))
}

/// A company's name over a statement's title: a few words in capitals or
/// title case ("CITYCENTER HOLDINGS, LLC", "PepsiCo, Inc.").
fn company_line(t: &str) -> bool {
    t.starts_with(char::is_alphanumeric)
        && t.split_whitespace().count() <= TUNING.company_line_words
        && (all_caps(t) || title_case(t))
}

fn short_line(t: &str) -> bool {
    t.split_whitespace().count() <= TUNING.short_line_words
        && t.chars().count() <= TUNING.short_line_chars
}

mod demote;
mod emphasis;
#[cfg(test)]
mod tests;
