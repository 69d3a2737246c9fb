//! Columns: where a page's text runs in two (or three) columns, found as a
//! vertical gutter most rows leave empty with prose on both sides, and the
//! order they are read in. A document set in columns keeps its gutter from
//! page to page, so a page whose own evidence is thin (a table in one column,
//! two rows of prose in the other) is read with its other pages' gutter.

use super::super::page::{Row, Span};
use super::super::text_shape::leader_run;
use super::super::tuning::TUNING;

/// A row's stretch of text: a span, or a name joined by dot leaders to
/// its page numbers.
#[derive(Debug, Clone, Copy)]
struct Entry {
    x0: f32,
    x1: f32,
    baseline: f32,
    size: f32,
    /// Set in a monospaced font: code, never a column's prose.
    code: bool,
}

impl Entry {
    fn width(&self) -> f32 {
        self.x1 - self.x0
    }
}

/// A gutter found: its x, and whether it was taken on the thin evidence
/// the document's usual gutter allows.
#[derive(Debug, Clone, Copy)]
struct Gutter {
    x: f32,
    thin: bool,
    /// The width the rows' text spans, which prose is measured against.
    width: f32,
    /// Found as text flows of their own, not by prose ([`Sides::flowing`]).
    flows: bool,
}

/// The width the rows' text spans, from its leftmost entry to its rightmost.
fn text_width(entries: &[Vec<Entry>]) -> f32 {
    let all = || entries.iter().flatten();
    let left = all().map(|e| e.x0).fold(f32::MAX, f32::min);
    let right = all().map(|e| e.x1).fold(f32::MIN, f32::max);
    right - left
}

/// What a candidate gutter at `g` makes of the rows: how many have text on both
/// sides, how many cross it, which have text on one side only, and each
/// row's widest entry on either side.
#[derive(Default)]
struct Sides {
    split: usize,
    /// For each row with text on both sides, how far the right side's
    /// baseline lies from the left side's, in type sizes (signed).
    offsets: Vec<f32>,
    cross: usize,
    /// The rows (by index, top down) with text left of the gutter only, and right only.
    alone: [Vec<usize>; 2],
    lefts: Vec<Entry>,
    rights: Vec<Entry>,
}

impl Sides {
    /// Rows that show the gutter parting columns: those with text on both
    /// sides, and as many more as there are rows of one side alone
    /// interleaved with rows of the other (columns whose baselines do not
    /// line up, under a heading or an equation of another height, share few
    /// rows). A short last line of a paragraph is alone on the left, but a
    /// single column has hardly a row alone on the right.
    fn parted(&self) -> usize {
        let [left, right] = &self.alone;
        let span = |v: &Vec<usize>| v.first().zip(v.last()).map(|(a, b)| (*a, *b));
        let interleaved = match (span(left), span(right)) {
            (Some((l0, l1)), Some((r0, r1))) => l0.max(r0) < l1.min(r1),
            _ => false,
        };
        self.split + usize::from(interleaved) * left.len().min(right.len())
    }

    /// Rows that show the gutter parting text flows of their own: rows with
    /// text on both sides whose baselines do not line up, when most do not
    /// and their offsets vary. Columns keep their own line pitch from their
    /// own headings, so the offset changes down the page; a table's label
    /// column set on a baseline of its own beside its figures keeps one
    /// offset (a filing's 0.16 of the size, row after row).
    fn flowing(&self) -> usize {
        let (shift, same) = TUNING.flow_offset;
        let off = self.offsets.iter().filter(|d| d.abs() > shift).count();
        let alike = |d: f32| {
            self.offsets
                .iter()
                .filter(|e| (*e - d).abs() <= same)
                .count()
        };
        let steady = self.offsets.iter().map(|&d| alike(d)).max().unwrap_or(0);
        let varied = 2 * steady < self.split;
        usize::from(2 * off > self.split && varied) * off
    }
}

fn sides(rows: &[Vec<Entry>], g: f32) -> Sides {
    let mut out = Sides::default();
    for (i, r) in rows.iter().enumerate() {
        if crosses(r, g) {
            out.cross += 1;
            continue;
        }
        let widest = |on_side: fn(&Entry, f32) -> bool| {
            r.iter()
                .filter(|e| on_side(e, g))
                .copied()
                .max_by(|a, b| a.width().total_cmp(&b.width()))
        };
        let l = widest(|e, g| e.x1 <= g);
        let rt = widest(|e, g| e.x0 >= g);
        match (l, rt) {
            (Some(l), Some(rt)) => {
                out.split += 1;
                let size = l.size.max(rt.size);
                out.offsets.push((rt.baseline - l.baseline) / size);
            }
            (Some(_), None) => out.alone[0].push(i),
            (None, Some(_)) => out.alone[1].push(i),
            (None, None) => {}
        }
        out.lefts.extend(l);
        out.rights.extend(rt);
    }
    out
}

/// Prose on a side of a gutter: a typical row's widest entry spans a
/// good part of the text's width (table cells are short), or `rows` rows
/// of prose run the width of a column of two. A table set in a column
/// (a filing's, a paper's) does not outvote the prose around it.
fn prose(side: &mut [Entry], width: f32, rows: usize) -> bool {
    if side.is_empty() {
        return false;
    }
    side.sort_by(|a, b| a.width().total_cmp(&b.width()));
    let full = |e: &&Entry| !e.code && e.width() >= TUNING.prose_width.1 * width;
    side[side.len() / 2].width() >= TUNING.prose_width.0 * width
        || side.iter().filter(full).count() >= rows
}

/// The column gutter in these rows (each given as its entries): a position
/// most rows with text on both sides leave empty, with prose on both sides.
/// At the document's usual gutter (`usual`) a row of prose a side is enough.
/// Only where no row-sharing gutter is found are columns on offset
/// baselines looked for, then columns as text flows of their own (without
/// prose: a reference card's), so a page read in columns before is read so
/// still.
fn gutter(entries: &[Vec<Entry>], usual: Option<f32>) -> Option<Gutter> {
    let width = text_width(entries);
    if width <= 0.0 {
        return None;
    }
    let candidates = within_rows(entries);
    best_gutter(entries, candidates.clone(), Evidence::Shared, usual, width)
        .or_else(|| {
            best_gutter(
                entries,
                across_rows(entries),
                Evidence::Parted,
                usual,
                width,
            )
        })
        .or_else(|| best_gutter(entries, candidates, Evidence::Flowing, None, width))
}

/// What shows a gutter parting columns, in the order it is looked for.
#[derive(Clone, Copy, PartialEq)]
enum Evidence {
    /// Rows with prose on both sides.
    Shared,
    /// Prose on both sides, the rows of each side interleaved ([`Sides::parted`]).
    Parted,
    /// Text flows of their own, prose or not ([`Sides::flowing`]).
    Flowing,
}

impl Evidence {
    fn rows(self, s: &Sides) -> usize {
        match self {
            Evidence::Shared => s.split,
            Evidence::Parted => s.parted(),
            Evidence::Flowing => s.flowing(),
        }
    }
}

/// Of the candidate positions, the gutter the most rows show by `evidence`,
/// with prose on both sides unless its rows show text flows of their own
/// (a reference card's columns of short entries).
fn best_gutter(
    entries: &[Vec<Entry>],
    candidates: Vec<f32>,
    evidence: Evidence,
    usual: Option<f32>,
    width: f32,
) -> Option<Gutter> {
    let flows = evidence == Evidence::Flowing;
    let mut best: Option<(usize, Gutter)> = None;
    for g in candidates {
        let mut s = sides(entries, g);
        let n = evidence.rows(&s);
        if n < TUNING.column_rows || n < s.cross {
            continue;
        }
        let usual_here = usual.is_some_and(|u| (g - u).abs() <= TUNING.usual_reach * width);
        let rows = if usual_here { 1 } else { TUNING.prose_rows };
        let both = |s: &mut Sides, rows| {
            prose(&mut s.lefts, width, rows) && prose(&mut s.rights, width, rows)
        };
        if !(flows || both(&mut s, rows)) {
            continue;
        }
        let thin = !(flows || both(&mut s, TUNING.prose_rows));
        if best.is_none_or(|(m, _)| n > m) {
            best = Some((
                n,
                Gutter {
                    x: g,
                    thin,
                    width,
                    flows,
                },
            ));
        }
    }
    best.map(|(_, g)| g)
}

/// Where a gutter may run: midway across each gap between entries of a row.
fn within_rows(entries: &[Vec<Entry>]) -> Vec<f32> {
    let within = entries
        .iter()
        .flat_map(|r| r.windows(2).map(|p| (p[0].x1 + p[1].x0) / 2.0));
    deduped(within.collect())
}

/// Where a gutter between columns that share no baseline may run (they
/// leave no gap inside a row): from each entry's end midway to the nearest
/// start of an entry right of it, in any row.
fn across_rows(entries: &[Vec<Entry>]) -> Vec<f32> {
    let mut starts: Vec<f32> = entries.iter().flatten().map(|e| e.x0).collect();
    starts.sort_by(f32::total_cmp);
    let next_start = |x: f32| starts.get(starts.partition_point(|&s| s <= x)).copied();
    let across = entries
        .iter()
        .flatten()
        .filter_map(|e| next_start(e.x1).map(|s| (e.x1 + s) / 2.0));
    deduped(across.collect())
}

fn deduped(mut xs: Vec<f32>) -> Vec<f32> {
    xs.sort_by(f32::total_cmp);
    xs.dedup_by(|a, b| (*a - *b).abs() < TUNING.same_candidate_points);
    xs
}

/// A row's entries, left to right: its spans, where dot leaders join a
/// name to its page numbers (an index's `\alph . . . . 75`, set as two or
/// three spans) as one entry. Leaders that end a column's row, with the
/// numbers wrapped to the next, join nothing across the gutter.
fn entries(r: &Row) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    let mut leads = false;
    for s in &r.spans {
        let t = s.text.trim();
        let page = t.starts_with(|c: char| c.is_ascii_digit());
        match out.last_mut() {
            Some(e) if (leads && page) || leader_run(t.chars()) => e.x1 = e.x1.max(s.x1),
            _ => out.push(Entry {
                x0: s.x0,
                x1: s.x1,
                baseline: s.baseline,
                size: s.size,
                code: s.pitch.fixed(),
            }),
        }
        leads = leader_run(t.chars().rev());
    }
    out
}

fn crosses(entries: &[Entry], x: f32) -> bool {
    entries.iter().any(|e| e.x0 < x && e.x1 > x)
}

/// Rows in reading order, and the gutter they were read across when they
/// are columns: see [`reading_order`]. `usual` is the gutter the document's
/// other pages show, if any; `depth` how many columns deep the rows are (0
/// for a page): a column's own columns (a third one) are read in order.
pub(super) fn read_columns(
    rows: Vec<Row>,
    usual: Option<f32>,
    depth: u8,
) -> (Vec<Row>, Option<f32>) {
    if depth >= 2 {
        return (rows, None);
    }
    let row_entries: Vec<Vec<Entry>> = rows.iter().map(entries).collect();
    match gutter(&row_entries, usual) {
        Some(g) => (reading_order(rows, &row_entries, g, depth), Some(g.x)),
        None => (rows, None),
    }
}

/// Rows in reading order: where the gutter `g` splits a run of rows into columns,
/// the left column is read down, then the right one (the right one first in
/// right-to-left text; each recursively, for three columns); a row that crosses the
/// gutter (a title, a wide figure caption) is read in its place. Taken on thin
/// evidence, the gutter parts only the runs of rows that hold prose on both sides:
/// a full-width table under two columns of prose keeps its rows whole.
fn reading_order(
    rows: Vec<Row>,
    row_entries: &[Vec<Entry>],
    gutter: Gutter,
    depth: u8,
) -> Vec<Row> {
    let mut out = Vec::new();
    let mut region: Vec<Row> = Vec::new();
    for (r, e) in rows.into_iter().zip(row_entries) {
        if crosses(e, gutter.x) {
            out.extend(read_region(std::mem::take(&mut region), gutter, depth));
            out.push(r);
        } else {
            region.push(r);
        }
    }
    out.extend(read_region(region, gutter, depth));
    out
}

/// A run of rows none of which crosses the gutter, in reading order: its
/// lead rows and a table set apart over the columns, then its columns,
/// each read on its own, then a table set apart under them.
fn read_region(mut region: Vec<Row>, gutter: Gutter, depth: u8) -> Vec<Row> {
    let lead = lead_rows(&region, gutter.x);
    let mut out: Vec<Row> = region.drain(..lead).collect();
    let top = apart(&region, gutter, false);
    out.extend(region.drain(..top));
    let foot = apart(&region, gutter, true);
    let tail = region.split_off(region.len() - foot);
    out.extend(read_parted(region, gutter, depth));
    out.extend(tail);
    out
}

/// How many rows at a region's top (or foot) are set apart by a gap from
/// the columns of prose they are over (or under), with no prose on either
/// side: a full-width table, where a gap between its cells falls at the
/// gutter. Two tables side by side, over more of their rows, stay parted.
fn apart(region: &[Row], gutter: Gutter, foot: bool) -> usize {
    let gap = |w: &[Row]| w[1].baseline() - w[0].baseline() > TUNING.gap.0 * w[0].size();
    let split = match foot {
        false => region.windows(2).position(gap).map(|i| i + 1),
        true => region.windows(2).rposition(gap).map(|i| i + 1),
    };
    let Some(at) = split else { return 0 };
    let n = TUNING.table_apart_rows;
    let (block, beside) = match foot {
        false => (&region[..at], &region[at..(at + n).min(region.len())]),
        true => (&region[at..], &region[at.saturating_sub(n)..at]),
    };
    let (left, right, split) = prose_sides(block, gutter);
    let (beside_left, beside_right, _) = prose_sides(beside, gutter);
    let table = block.len() >= n && split == block.len();
    usize::from(table && !(left || right) && beside_left && beside_right) * block.len()
}

/// Prose left and right of the gutter in rows, and how many have text on both sides.
fn prose_sides(rows: &[Row], gutter: Gutter) -> (bool, bool, usize) {
    let mut s = sides(&rows.iter().map(entries).collect::<Vec<_>>(), gutter.x);
    let left = prose(&mut s.lefts, gutter.width, 1);
    (left, prose(&mut s.rights, gutter.width, 1), s.split)
}

/// A region's rows read as its columns, when the gutter parts them.
fn read_parted(region: Vec<Row>, gutter: Gutter, depth: u8) -> Vec<Row> {
    if !in_columns(&region, gutter) {
        return region;
    }
    let (mut left, mut right) = (Vec::new(), Vec::new());
    for r in region {
        let (l, rt): (Vec<Span>, Vec<Span>) = r.spans.into_iter().partition(|s| s.x1 <= gutter.x);
        for (side, spans) in [(&mut left, l), (&mut right, rt)] {
            if !spans.is_empty() {
                side.push(Row { spans, rtl: r.rtl });
            }
        }
    }
    // Arabic, Persian and Hebrew pages start at the right.
    let rtl = 2 * left.iter().chain(&right).filter(|r| r.rtl).count() > left.len() + right.len();
    if rtl {
        std::mem::swap(&mut left, &mut right);
    }
    let mut out = read_columns(left, None, depth + 1).0;
    out.extend(read_columns(right, None, depth + 1).0);
    out
}

/// How many rows at the top of a region come first, as on the page: a
/// line or two over one column, set apart above the row where both
/// columns start (a running header at the right, over an index). A
/// column that starts lower (under a figure) is still read in its turn.
fn lead_rows(region: &[Row], g: f32) -> usize {
    let both = |r: &Row| r.spans.iter().any(|s| s.x1 <= g) && r.spans.iter().any(|s| s.x0 >= g);
    region
        .iter()
        .position(both)
        .filter(|&k| {
            (1..=2).contains(&k)
                && region[k].baseline() - region[k - 1].baseline()
                    > TUNING.gap.0 * region[k - 1].size()
        })
        .unwrap_or(0)
}

/// Whether the gutter parts a region's rows into columns: code on both sides
/// and nothing else (a listing's line, its closing brace far to the right)
/// stays whole; code beside prose (an example beside its output) is parted.
/// Prose on one side at least (a table in a column beside prose), on both
/// when the gutter was taken on thin evidence: a full-width table's rows
/// between the page's columns, where a gap between its cells falls at the
/// gutter, stay whole.
fn in_columns(region: &[Row], gutter: Gutter) -> bool {
    let g = gutter.x;
    let mut alone = [false, false];
    let columns = region.iter().any(|r| {
        let (l, rt): (Vec<&Span>, Vec<&Span>) = r.spans.iter().partition(|s| s.x1 <= g);
        let code = |side: &[&Span]| side.iter().any(|s| s.pitch.fixed());
        let listing = code(&l) && code(&rt);
        alone[0] |= rt.is_empty() && !l.is_empty();
        alone[1] |= l.is_empty() && !rt.is_empty();
        !l.is_empty() && !rt.is_empty() && !listing
    }) || alone == [true, true];
    let (left, right, _) = prose_sides(region, gutter);
    columns && (gutter.flows || (left || right) && (!gutter.thin || (left && right)))
}

/// The gutter most of a document's pages were read across: one within a
/// few points on at least three pages and a tenth of the pages with text.
/// `gutters` holds each page's, `None` where it has no columns.
pub(in super::super) fn usual_gutter(
    gutters: &[Option<f32>],
    pages_with_text: usize,
) -> Option<f32> {
    let found: Vec<f32> = gutters.iter().flatten().copied().collect();
    let near = |g: f32| {
        found
            .iter()
            .filter(|&&h| (h - g).abs() <= TUNING.same_gutter)
            .count()
    };
    let (n, g) = found
        .iter()
        .map(|&g| (near(g), g))
        .max_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)))?;
    let (pages, one_page_in) = TUNING.usual_gutter_pages;
    (n >= pages && n * one_page_in >= pages_with_text).then_some(g)
}
