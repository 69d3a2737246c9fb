//! The walk over a document's groups of lines, in reading order: each
//! becomes a listing, a table (with its caption, column headers and a
//! statement's title taken in), a statement's title, a heading with the
//! cue its level is read from, or text. Levels come after, from the
//! roles (`levels.rs`).

use super::super::block::{Block, Cue, Role};
use super::super::contents::contents_title;
use super::super::grouping::{apart, cells_beside, indented_cjk_paragraph, mark_beside, mean_size};
use super::super::monospace::code_text;
use super::super::numbering::{chapter_label, item_heading, numbered_depth};
use super::super::page::Line;
use super::super::statement::{caption, statement_line, statement_title};
use super::super::text_shape::{all_caps, index_group, title_case};
use super::super::tuning::TUNING;
use super::features::{Document, Group};
use super::rules::{fired, score, Decision, Features};

/// What the walk has made so far.
#[derive(Default)]
pub(super) struct Walk {
    pub out: Vec<Block>,
    /// The lines of the last two blocks of prose, for a statement's title.
    last_lines: [Vec<String>; 2],
    /// What the rules made of each group, when asked (`--explain`).
    pub trace: Option<Vec<Decision>>,
}

impl Walk {
    /// Decides one group and adds its blocks.
    pub(super) fn add(&mut self, doc: &Document, g: Group) {
        let size = mean_size(&g.lines);
        // The group's page, type and place, which each of its blocks carries.
        let at = Block {
            page: g.page,
            size,
            top: g.lines[0].y,
            x: g.lines[0].x,
            ocr: doc.pages[g.page as usize - 1].ocr,
            italic: doc.italic(&g.lines),
            bold: !doc.bold_body && g.lines.iter().all(|l| l.bold),
            mono: g.lines.iter().all(|l| doc.code(l)),
            ..Block::default()
        };
        let code = g.lines[0].mono;
        let entry = || matches!(g.lines[..], [l] if doc.code_in_headings_ink(l));
        if code && apart(&g.lines) && !entry() {
            self.listing(&g.lines, &at);
            return;
        }
        if g.lines.first().is_some_and(|l| l.table) {
            self.table(doc, &g.lines, &at);
            return;
        }
        self.last_lines.swap(0, 1);
        self.last_lines[1] = g.lines.iter().map(|l| l.text.clone()).collect();
        if self.statement_named(doc, &g.lines, &at) {
            return;
        }
        let f = features(doc, &g, &at);
        let fired = fired(&f);
        let role = match score(&fired, doc.class) > 0.0 {
            true => Role::Heading(cue(&f, &g.text)),
            false => Role::Text,
        };
        // A lone bold line of code that heads nothing is a listing still.
        if code && role == Role::Text {
            self.listing(&g.lines, &at);
        } else {
            self.out.push(at.with(g.text, role));
        }
        if let (Some(trace), Some(b)) = (self.trace.as_mut(), self.out.last()) {
            trace.push(Decision::new(b, fired, doc.class));
        }
    }

    /// A listing: its lines and their indentation as set.
    fn listing(&mut self, lines: &[&Line], at: &Block) {
        self.out.push(Block {
            code: true,
            ..at.with(code_text(lines), Role::Apart)
        });
    }

    /// A table: its rows one line each, with its column headers and the
    /// lines that lead into it above them.
    fn table(&mut self, doc: &Document, rows: &[&Line], at: &Block) {
        let mut lines = column_headers(&mut self.out, at.page, rows);
        lines.extend(rows.iter().map(|l| l.text.clone()));
        if let Some(lead) = self.table_lead(doc, at.page) {
            lines.insert(0, lead);
        }
        self.out.push(Block {
            table: true,
            ..at.with(lines.join("\n"), Role::Apart)
        });
    }

    /// The caption right above a table goes with it: a `Table 3` line, or the short
    /// lines that title a statement ("CONSOLIDATED BALANCE SHEETS"), whose title
    /// line heads the table as a heading; the units and dateline between ("(Amounts
    /// in millions)", "Years Ended December 31,") belong to the table. Taken from
    /// the end of the blocks; the text to set over the rows.
    fn table_lead(&mut self, doc: &Document, page: u32) -> Option<String> {
        let lead = statement_lead(&self.out, page);
        if lead > 0 && doc.filing() {
            let at = self.out.len() - lead;
            let lines: Vec<String> = self.out.drain(at..).map(|b| b.text).collect();
            return Some(lines.join("\n"));
        }
        let prev = self
            .out
            .last()
            .filter(|b| b.page == page && !b.table && !b.heading())?;
        if caption(&prev.text) {
            return self.out.pop().map(|b| b.text);
        }
        if let Some((title, rest)) = statement_title(&self.last_lines[1])
            .filter(|_| doc.filing() && !doc.listed(page, prev.top))
        {
            let prev = self.out.pop().unwrap_or_else(|| unreachable!());
            self.statement_heading(title, prev);
            return (!rest.is_empty()).then_some(rest);
        }
        if prev.text.split_whitespace().count() > TUNING.short_line.0 || self.out.len() < 2 {
            return None;
        }
        // A dateline between title and table ("Years Ended December 31,").
        let before = &self.out[self.out.len() - 2];
        let prose = before.page == page
            && !before.table
            && !before.heading()
            && !doc.listed(page, before.top);
        let (title, rest) =
            statement_title(&self.last_lines[0]).filter(|_| prose && doc.filing())?;
        let dateline = self.out.pop().unwrap_or_else(|| unreachable!());
        let block = self.out.pop().unwrap_or_else(|| unreachable!());
        self.statement_heading(title, block);
        let lead = [rest, dateline.text].into_iter().filter(|s| !s.is_empty());
        Some(lead.collect::<Vec<_>>().join("\n"))
    }

    /// `block` made the heading of a statement titled `title`.
    fn statement_heading(&mut self, title: String, block: Block) {
        self.out.push(Block {
            role: Role::Heading(Cue::Statement),
            text: title,
            ..block
        });
    }

    /// A financial statement's title heads what follows wherever its table
    /// starts: "CONSOLIDATED STATEMENTS OF OPERATIONS (Amounts in millions)",
    /// its units split off as text of their own. A company's name over it in
    /// the same block, in the text's type ("NORTHWIND HOLDINGS, LLC" /
    /// "CONSOLIDATED STATEMENTS OF CASH FLOWS" / "(In thousands)"), goes
    /// under the title with the units. Whether the group was one.
    fn statement_named(&mut self, doc: &Document, g: &[&Line], at: &Block) -> bool {
        if !doc.filing() || doc.listed(at.page, g[0].y) {
            return false;
        }
        let named = (0..g.len().min(2))
            .filter(|&i| match i {
                0 => g.len() <= TUNING.statement_title_lines,
                _ => {
                    g.len() <= TUNING.statement_title_lines + 1
                        && !doc.big(at.size, at.page)
                        && company_line(&g[0].text)
                }
            })
            .find_map(|i| statement_line(&g[i].text).map(|(title, units)| (i, title, units)));
        let Some((i, title, units)) = named else {
            return false;
        };
        self.statement_heading(title, at.with(String::new(), Role::Text));
        let mut rest: Vec<&str> = g.iter().map(|l| l.text.as_str()).collect();
        rest[i] = &units;
        rest.retain(|s| !s.is_empty());
        if !rest.is_empty() {
            self.out.push(at.with(rest.join(" "), Role::Apart));
        }
        self.last_lines[1].clear();
        true
    }
}

/// What a heading's level is read from: an index's letter, larger type,
/// its number, or else its emphasis in the body's type.
fn cue(f: &Features, text: &str) -> Cue {
    if f.letter {
        Cue::Letter
    } else if f.larger {
        Cue::Larger
    } else if let Some(depth) = numbered_depth(text) {
        Cue::Numbered(depth)
    } else {
        Cue::Body
    }
}

/// What the group (its blocks' page, type and place `at`) shows the heading rules.
fn features(doc: &Document, g: &Group, at: &Block) -> Features {
    let (page, text, first, size) = (g.page, g.text.as_str(), g.lines[0], at.size);
    let bold = at.bold;
    let set_apart = bold || !text.chars().any(char::is_lowercase);
    let letter = g.letter && (bold || doc.big(size, page) || g.alphabetical);
    // A name in code in the headings' colour: an entry of a reference.
    let entry = g.lines.iter().all(|l| doc.code_in_headings_ink(l));
    // A table's row has cells apart on its baseline, or a mark beside it.
    let i = page as usize - 1;
    let (page_lines, gutter) = (&doc.lines[i], doc.pages[i].gutter);
    let row = !letter
        && !contents_title(text)
        && ((g.lines.len() == 1 && cells_beside(page_lines, gutter, first) >= TUNING.row_cells)
            || (g.lines.len() <= TUNING.heading_lines && mark_beside(page_lines, gutter, first)));
    // Code set apart from what follows is measured against the document's
    // code; a term in code right over its description is no heading.
    let last = g.lines[g.lines.len() - 1];
    let code_apart = entry || (at.mono && spaced_below(page_lines, last));
    let mut f = Features {
        class: doc.class,
        lines: g.lines.len(),
        larger: doc.big(size, page),
        // An index's letters in an alphabetical run are its whatever its
        // type: an index is often set smaller than the body.
        smaller: doc.smaller(code_apart, size, page) && !g.alphabetical,
        bold,
        italic: at.italic,
        look: doc.other_look(&g.lines),
        letter,
        listed: doc.listed(page, first.y) && !contents_title(text),
        indented: g.lines.len() == 1
            && numbered_depth(text).is_none()
            && indented_cjk_paragraph(first, doc.margins[(page % 2) as usize]),
        row,
        item: item_heading(text) && set_apart,
        labelled: g.lines.len() > 1 && chapter_label(&first.text) && set_apart,
        sized_headings: !doc.heading_sizes.is_empty(),
        ..Features::of_text(text)
    };
    // A name in code keeps its own case (`eol`, an attribute's name).
    f.faults.lower_case &= !entry;
    f
}

/// Whether a gap (or the page's end) follows `last`, a line of `page`.
fn spaced_below(page: &[Line], last: &Line) -> bool {
    let at = page.iter().position(|l| std::ptr::eq(l, last));
    at.and_then(|i| page.get(i + 1)).is_none_or(|next| next.gap)
}

/// The headings right over a table, in its type, that stand over its columns
/// and not at its left ("Fair Value" over "Level 1 … Total", "Carrying" over
/// "Amount"): a column's header set apart from the rows, which as a heading
/// would cite the table under "Carrying". Taken from the end of `out`, in
/// reading order. A lone line centred over the table is its title; numbered
/// lines, contents titles and an index's letters or groups head what follows.
fn column_headers(out: &mut Vec<Block>, page: u32, rows: &[&Line]) -> Vec<String> {
    let left = rows.iter().map(|l| l.x).fold(f32::MAX, f32::min);
    let right = rows.iter().map(|l| l.end).fold(f32::MIN, f32::max);
    let size = rows.iter().map(|l| l.size).fold(0.0, f32::max);
    let width = right - left;
    let mut top = rows[0].y;
    let mut n = 0;
    for b in out.iter().rev() {
        let header = b.page == page
            && b.heading()
            && !b.table
            && b.size <= size + TUNING.same_type_points
            && b.text.split_whitespace().count() <= TUNING.cell_words
            && b.text.chars().count() > 1
            && b.x >= left + TUNING.column_header.0 * width
            && b.top < top
            && top - b.top <= TUNING.column_header.1 * b.size
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
    for lead in (1..out.len()).take(TUNING.statement_lead_blocks) {
        let between = &out[out.len() - lead..];
        let short = |b: &Block| {
            b.page == page
                && !b.table
                && !b.heading()
                && b.text.split_whitespace().count() <= TUNING.label_words
        };
        if !between.iter().all(short) {
            return 0;
        }
        let title = &out[out.len() - lead - 1];
        if title.page == page && title.heading() && statement_line(&title.text).is_some() {
            return lead;
        }
    }
    0
}

/// A company's name over a statement's title: a few words in capitals or
/// title case ("NORTHWIND HOLDINGS, LLC", "Northwind, Inc.").
fn company_line(t: &str) -> bool {
    t.starts_with(char::is_alphanumeric)
        && t.split_whitespace().count() <= TUNING.short_line.0
        && (all_caps(t) || title_case(t))
}
