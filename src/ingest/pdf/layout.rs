//! From laid-out lines to paragraphs and headings, stage by stage: the
//! document's features, each group's role (`walk.rs`), the headings the
//! whole document shows are none taken back (`demote.rs`), the title, the
//! levels (`levels.rs`), reference entries run into the text
//! (`entries.rs`). Table rows stay one line each, in a block of
//! their own with the caption above them.

use super::block::{Block, Role};
use super::body::body_size;
use super::furniture::strip_running_lines;
use super::hyphens::Hyphenation;
use super::numbering::{chapter_label, numbered_depth};
use super::overlays::drop_overlay_steps;
use super::page::{Line, Page};
use super::text_shape::{figure_caption, without_stray_quotes};
use super::tuning::TUNING;
use super::wrapped_cells::join_wrapped_cells;
use demote::{
    drop_continued_headings, drop_cover_lines, drop_out_of_count, drop_section_marks,
    drop_signature_places, drop_signers, drop_stray_initials,
};
use entries::run_in_entries;
use features::Document;
use levels::levels;
pub use rules::Decision;
pub(super) use rules::{RULES, WEIGHTS};
use walk::Walk;

/// What the heading rules made of each group of lines, in reading order.
pub(crate) fn decisions(pages: &[Page]) -> Vec<Decision> {
    let hyphens = Hyphenation::of(pages);
    structure(pages, &hyphens, Some(Vec::new()), &|_| None, false).2
}

/// Blocks of every page in reading order with their levels, the title, and
/// with a `trace` the rules' decisions: each group of lines given its role;
/// headings only the whole document shows are none taken back; the `title`
/// chosen and, with `title_page` (no bookmarks), the title page's headings
/// taken back; then the levels.
pub(super) fn structure(
    pages: &[Page],
    hyphens: &Hyphenation,
    trace: Option<Vec<Decision>>,
    title: &dyn Fn(&[Block]) -> Option<String>,
    title_page: bool,
) -> (Vec<Block>, Option<String>, Vec<Decision>) {
    let mut lines: Vec<Vec<Line>> = pages.iter().map(|p| p.lines.clone()).collect();
    drop_overlay_steps(&mut lines);
    let body = body_size(&lines);
    strip_running_lines(&mut lines, body);
    for page in &mut lines {
        join_wrapped_cells(page, hyphens);
    }
    let (doc, groups) = Document::read(pages, &lines, body, hyphens);
    let mut walk = Walk::default();
    walk.trace = trace;
    groups.into_iter().for_each(|g| walk.add(&doc, g));
    let trace = walk.trace.take().unwrap_or_default();
    let mut out = walk.out;
    drop_section_marks(&mut out, pages);
    drop_signature_places(&mut out);
    drop_signers(&mut out);
    drop_stray_initials(&mut out);
    drop_out_of_count(&mut out);
    drop_continued_headings(&mut out);
    for b in out.iter_mut().filter(|b| b.heading()) {
        b.text = without_stray_quotes(&b.text);
    }
    let title = title(&out);
    if title_page {
        drop_title_page_headings(&mut out, title.as_deref());
    }
    for (i, level) in levels(&doc, &out).into_iter().enumerate() {
        out[i].level = level;
    }
    join_chapter_labels(&mut out);
    rank_levels(&mut out);
    run_in_entries(&mut out);
    floats_under_their_heading(&mut out);
    (out, title, trace)
}

/// Tables and figures set atop a page, before its first heading, are in
/// its section (a float goes where it fits): the heading moves up.
fn floats_under_their_heading(blocks: &mut [Block]) {
    let float = |b: &Block| b.level.is_none() && (b.table || figure_caption(&b.text));
    for i in 1..blocks.len() {
        let page = blocks[i].page;
        let mut j = i;
        while j > 0 && blocks[j - 1].page == page && float(&blocks[j - 1]) {
            j -= 1;
        }
        let atop = j == 0 || blocks[j - 1].page != page;
        if blocks[i].level.is_some() && j < i && atop {
            blocks[j..=i].rotate_right(1);
        }
    }
}

/// A chapter's label on a line of its own over its title ("Part I" over
/// "Getting started", "第一章" over "绪论") is one heading with the title:
/// alone it would head an empty section beside its chapter. A filing's
/// "PART I" holds its items: the title must rank as high and not be numbered.
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
/// under the title, where their type is larger than every later
/// heading's; and the lines around them (`drop_cover_lines`).
fn drop_title_page_headings(blocks: &mut [Block], title: Option<&str>) {
    let first_page = blocks.first().map(|b| b.page);
    let on_first = |b: &Block| Some(b.page) == first_page;
    let is_title = |b: &Block| on_first(b) && title == Some(b.text.as_str());
    if let Some(t) = blocks.iter().position(is_title) {
        let subtitle = blocks
            .get(t + 1)
            .is_some_and(|b| b.heading() && on_first(b));
        let end = t + 1 + usize::from(subtitle);
        // A lone heading heads the text under it, title or not.
        let below = blocks[end..]
            .iter()
            .filter(|b| b.heading())
            .map(|b| b.size)
            .reduce(f32::max);
        let over = |b: &&mut Block| below.is_some_and(|l| b.size > l + TUNING.same_type_points);
        for b in blocks[..end].iter_mut().filter(over) {
            b.role = Role::Text;
        }
    }
    drop_cover_lines(blocks, title);
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

mod demote;
mod emphasis;
mod entries;
mod features;
mod levels;
mod rules;
#[cfg(test)]
mod tests;
mod walk;
