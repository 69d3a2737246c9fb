//! `cargo dev fit-pdf-rules PATH...`: fits the weights of the PDF heading
//! rules (src/ingest/pdf/layout/rules.rs) on bookmarked PDFs. A PDF's
//! bookmarks are its answer: a group of lines whose text is a bookmark's
//! title, on the bookmark's page, is a heading; every other group the
//! rules judge is text. Files fall in a fit half and a check half by the
//! FNV-1a hash of their file name (kb-eval's halves); a logistic
//! regression over the rules that fire is fitted on the fit half, for
//! each document class with enough headings there (a column of weights
//! each; the others keep theirs), its
//! threshold set where the fit half's F1 is best without losing recall
//! against the checked-in weights. A class takes its fitted column only
//! when the fit half says it holds: fitted on all folds of the fit half
//! but one and scored on that one, in turn, it must reach the checked-in
//! weights' precision and recall there. The check half is only reported
//! (precision and recall of both columns). `--write` writes the chosen
//! weights to heading_weights.tsv.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use clap::Args;

use kb::config::{CliOverrides, Config};
use kb::ingest::pdf::{
    heading_decisions, heading_rules, DocumentClass, HeadingDecision, HeadingRule, OutlineEntry,
    PdfSettings,
};

use crate::halves::{fnv1a_64, Half};

const WEIGHTS_FILE: &str = "src/ingest/pdf/layout/heading_weights.tsv";

/// The fit half's folds for the cross-validated choice.
const FOLDS: usize = 5;

/// A group overlapping a title by fewer letters and digits is not taken
/// for a part of it.
const MIN_OVERLAP: usize = 4;

#[derive(Debug, Args)]
pub(crate) struct FitArgs {
    /// PDF files, or folders searched for them
    #[arg(value_name = "PATH", required = true)]
    paths: Vec<PathBuf>,
    /// Read at most this many files of each half of each PATH (those
    /// without bookmarks are read and left out)
    #[arg(long, default_value_t = 300)]
    max_files: usize,
    /// Leave out files larger than this many megabytes
    #[arg(long, default_value_t = 8)]
    max_mb: u64,
    /// The ridge penalty on the weights (in samples)
    #[arg(long, default_value_t = 1.0)]
    ridge: f64,
    /// A class is fitted when its fit half has this many headings
    #[arg(long, default_value_t = 300)]
    min_headings: usize,
    /// Write the fitted weights to heading_weights.tsv
    #[arg(long)]
    write: bool,
}

/// How often a pattern of fired rules is a heading and text, in one half
/// and one document class.
#[derive(Default)]
struct Counts {
    patterns: HashMap<Vec<bool>, (f64, f64)>,
    files: usize,
    bookmarks: usize,
    matched: usize,
}

impl Counts {
    fn absorb(&mut self, other: &Counts) {
        for (fired, (h, t)) in &other.patterns {
            let e = self.patterns.entry(fired.clone()).or_default();
            e.0 += h;
            e.1 += t;
        }
        self.files += other.files;
        self.bookmarks += other.bookmarks;
        self.matched += other.matched;
    }
}

/// True positives, false positives and false negatives.
type Confusion = (f64, f64, f64);

const CLASSES: [DocumentClass; 4] = [
    DocumentClass::Filing,
    DocumentClass::Paper,
    DocumentClass::Manual,
    DocumentClass::Generic,
];

pub(crate) fn run(args: &FitArgs, root: &Path) -> Result<(), String> {
    let config = Config::load(&CliOverrides::default()).map_err(|e| e.to_string())?;
    let settings = PdfSettings::from_config(&config);
    // By half (fit, check), then by class; the fit half also by fold.
    let mut counts: [[Counts; 4]; 2] = Default::default();
    let mut folds: [[Counts; 4]; FOLDS] = Default::default();
    // Every file read, bookmarked or not, by its class.
    let mut read = [0usize; 4];
    for (h, half) in [Half::Fit, Half::Check].into_iter().enumerate() {
        for f in chosen(args, half) {
            let Ok(bytes) = std::fs::read(&f) else {
                continue;
            };
            if let Ok((decisions, bookmarks)) = heading_decisions(&f, &bytes, &settings) {
                if let Some(d) = decisions.first() {
                    let c = d.class as usize;
                    read[c] += 1;
                    if !bookmarks.is_empty() {
                        let mut file = Counts::default();
                        add_file(&mut file, &decisions, &bookmarks);
                        counts[h][c].absorb(&file);
                        if half == Half::Fit {
                            folds[fold_of(&f)][c].absorb(&file);
                        }
                    }
                }
            }
        }
    }
    let classed: Vec<String> = CLASSES
        .iter()
        .zip(read)
        .map(|(c, n)| format!("{c:?} {n}"))
        .collect();
    println!("files read, by class: {}", classed.join(", "));
    let rules = heading_rules();
    let mut table: Vec<[f64; 4]> = rules.iter().map(|r| r.weights.map(f64::from)).collect();
    for (c, class) in CLASSES.iter().enumerate() {
        let current: Vec<f64> = table.iter().map(|w| w[c]).collect();
        let [fit, check] = [&counts[0][c], &counts[1][c]];
        let headings = fit.patterns.values().map(|v| v.0).sum::<f64>();
        println!(
            "{class:?}: fit half {} files, check half {} files",
            fit.files, check.files
        );
        if headings < args.min_headings as f64 {
            println!(
                "  {} headings in the fit half: its weights stay\n",
                headings as u64
            );
            continue;
        }
        let fitted = fit_column(fit, &current, args.ridge);
        for (name, half) in [("fit", fit), ("check", check)] {
            report(name, half, &current, &fitted);
        }
        let (p, r) = rates(cross_validated(&folds, c, &current, args.ridge));
        let (p0, r0) = precision_recall(&fit.patterns, &current);
        let holds = p >= p0 && r >= r0;
        println!(
            "  fit half, {FOLDS} folds in turn: fitted precision {p:.3} recall {r:.3} \
             against {p0:.3} {r0:.3}: {}\n",
            if holds {
                "the fitted weights are taken"
            } else {
                "the checked-in weights stay"
            }
        );
        if holds {
            table
                .iter_mut()
                .zip(&fitted)
                .for_each(|(row, w)| row[c] = *w);
        }
    }
    println!(
        "rule\tfiling\tpaper\tmanual\tgeneric (fitted; the checked-in weights in parentheses)"
    );
    for (r, w) in rules.iter().zip(&table) {
        let cells: Vec<String> = w
            .iter()
            .zip(r.weights)
            .map(|(w, old)| format!("{w:.3} ({old})"))
            .collect();
        println!("{}\t{}", r.name, cells.join("\t"));
    }
    if args.write {
        write_weights(&root.join(WEIGHTS_FILE), &rules, &table)?;
        println!("wrote {WEIGHTS_FILE}");
    }
    Ok(())
}

/// One half's groups, headings, bookmarks found, and the precision and
/// recall of the checked-in and the fitted weights.
fn report(name: &str, c: &Counts, current: &[f64], fitted: &[f64]) {
    let (h, t) = c
        .patterns
        .values()
        .fold((0.0, 0.0), |a, v| (a.0 + v.0, a.1 + v.1));
    println!(
        "  {name}: {} groups, {h} headings; {} of {} bookmarks found as a group",
        h + t,
        c.matched,
        c.bookmarks
    );
    for (which, w) in [("checked-in", current), ("fitted", fitted)] {
        let (p, r) = precision_recall(&c.patterns, w);
        let f1 = 2.0 * p * r / (p + r).max(f64::EPSILON);
        println!("    {which:<10} precision {p:.3} recall {r:.3} F1 {f1:.3}");
    }
}

/// The files read of one half: of each path, every n-th PDF of that half
/// (in path order, so spread over its folders), at most `max_files`.
fn chosen(args: &FitArgs, half: Half) -> Vec<PathBuf> {
    let limit = args.max_mb << 20;
    let mut out = Vec::new();
    for p in &args.paths {
        let mut files = Vec::new();
        pdfs_under(p, &mut files);
        files.sort();
        files.retain(|f| {
            Half::of(&file_name(f)) == half && std::fs::metadata(f).is_ok_and(|m| m.len() <= limit)
        });
        let step = (files.len() / args.max_files.max(1)).max(1);
        out.extend(files.into_iter().step_by(step).take(args.max_files));
    }
    out
}

/// A class's weights fitted on `c`: the logistic regression, its bias
/// shifted to the best F1 that keeps the checked-in weights' recall.
fn fit_column(c: &Counts, current: &[f64], ridge: f64) -> Vec<f64> {
    let mut w = fit_logistic(&c.patterns, current.len(), ridge);
    let floor = precision_recall(&c.patterns, current).1;
    w[0] += best_threshold(&c.patterns, &w, floor);
    w
}

/// Each fold of the fit half scored by weights fitted on the other folds,
/// summed: how the fit does on files it did not see, without the check
/// half.
fn cross_validated(folds: &[[Counts; 4]], class: usize, current: &[f64], ridge: f64) -> Confusion {
    let mut total = (0.0, 0.0, 0.0);
    for (k, held_out) in folds.iter().enumerate() {
        let mut train = Counts::default();
        for (_, fold) in folds.iter().enumerate().filter(|(i, _)| *i != k) {
            train.absorb(&fold[class]);
        }
        let (tp, fp, fneg) = confusion(
            &held_out[class].patterns,
            &fit_column(&train, current, ridge),
        );
        total = (total.0 + tp, total.1 + fp, total.2 + fneg);
    }
    total
}

/// A fit-half file's fold: bits of its name's hash above the one that
/// chose its half.
fn fold_of(p: &Path) -> usize {
    ((fnv1a_64(file_name(p).as_bytes()) >> 1) % FOLDS as u64) as usize
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned())
}

fn pdfs_under(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_file() {
        if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pdf")) {
            out.push(p.to_path_buf());
        }
        return;
    }
    let Ok(entries) = std::fs::read_dir(p) else {
        return;
    };
    for e in entries.flatten() {
        // Symbolic links are not followed: a folder may link to itself.
        if e.file_type().is_ok_and(|t| !t.is_symlink()) {
            pdfs_under(&e.path(), out);
        }
    }
}

/// A title's letters and digits, lower-cased, its leading number left
/// out ("2.3 Results" is "results").
fn key(t: &str) -> String {
    let t = t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c.is_whitespace());
    t.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Counts a file's groups: a group whose text is a bookmark's title, on
/// the bookmark's page or next to it, is a heading; one that only holds a
/// title or is held in one (a heading run into its paragraph, a title with
/// a footnote mark) is left out, neither answer being sure; every other
/// group is text.
fn add_file(c: &mut Counts, decisions: &[HeadingDecision], bookmarks: &[OutlineEntry]) {
    let mut wanted: HashMap<(u32, String), usize> = bookmarks
        .iter()
        .map(|b| ((b.page, key(&b.title)), 0))
        .filter(|((_, k), _)| !k.is_empty())
        .collect();
    let mut titles: HashMap<u32, Vec<String>> = HashMap::new();
    for (page, t) in wanted.keys() {
        titles.entry(*page).or_default().push(t.clone());
    }
    for d in decisions {
        let k = key(&d.text);
        // A bookmark may point at the page before its heading, or after.
        let near = [d.page, d.page.saturating_sub(1), d.page + 1];
        let place = near
            .into_iter()
            .find(|p| wanted.contains_key(&(*p, k.clone())));
        let label = match place {
            Some(p) => {
                *wanted.entry((p, k)).or_default() += 1;
                true
            }
            None => {
                let mut nearby = near.iter().filter_map(|p| titles.get(p));
                if nearby.any(|on_page| overlaps_a_title(on_page, &k)) {
                    continue;
                }
                false
            }
        };
        let e = c.patterns.entry(d.fired.clone()).or_default();
        if label {
            e.0 += 1.0;
        } else {
            e.1 += 1.0;
        }
    }
    c.files += 1;
    c.bookmarks += wanted.len();
    c.matched += wanted.values().filter(|&&n| n > 0).count();
}

/// Whether a group's key holds one of a page's titles, or is held in one
/// (the part held at least `MIN_OVERLAP` letters and digits).
fn overlaps_a_title(titles: &[String], k: &str) -> bool {
    let holds = |outer: &str, inner: &str| inner.len() >= MIN_OVERLAP && outer.contains(inner);
    titles.iter().any(|t| holds(k, t) || holds(t, k))
}

/// Heading when the bias and the fired rules' weights sum above zero.
fn says_heading(fired: &[bool], w: &[f64]) -> bool {
    w[0] + fired
        .iter()
        .zip(&w[1..])
        .filter(|(f, _)| **f)
        .map(|(_, w)| w)
        .sum::<f64>()
        > 0.0
}

fn confusion(patterns: &HashMap<Vec<bool>, (f64, f64)>, w: &[f64]) -> Confusion {
    let (mut tp, mut fp, mut fneg) = (0.0, 0.0, 0.0);
    for (fired, (h, t)) in patterns {
        if says_heading(fired, w) {
            tp += h;
            fp += t;
        } else {
            fneg += h;
        }
    }
    (tp, fp, fneg)
}

fn rates((tp, fp, fneg): Confusion) -> (f64, f64) {
    (tp / (tp + fp).max(1.0), tp / (tp + fneg).max(1.0))
}

fn precision_recall(patterns: &HashMap<Vec<bool>, (f64, f64)>, w: &[f64]) -> (f64, f64) {
    rates(confusion(patterns, w))
}

/// Logistic regression by Newton's method with a ridge penalty (the bias
/// free of it), from zero weights.
fn fit_logistic(patterns: &HashMap<Vec<bool>, (f64, f64)>, n: usize, ridge: f64) -> Vec<f64> {
    let rows: Vec<(Vec<f64>, f64, f64)> = patterns
        .iter()
        .map(|(fired, &(h, t))| {
            let x = std::iter::once(1.0).chain(fired.iter().map(|&f| f64::from(u8::from(f))));
            (x.collect(), h, t)
        })
        .collect();
    let mut w = vec![0.0; n];
    for _ in 0..200 {
        let mut grad = vec![0.0; n];
        let mut hess = vec![vec![0.0; n]; n];
        for (x, h, t) in &rows {
            let z: f64 = x.iter().zip(&w).map(|(a, b)| a * b).sum();
            let p = 1.0 / (1.0 + (-z).exp());
            let (g, s) = (h * (1.0 - p) - t * p, (h + t) * p * (1.0 - p));
            for i in 0..n {
                grad[i] += g * x[i];
                for j in 0..n {
                    hess[i][j] += s * x[i] * x[j];
                }
            }
        }
        for i in 1..n {
            grad[i] -= ridge * w[i];
            hess[i][i] += ridge;
        }
        hess[0][0] += 1e-9;
        let step = solve(hess, grad);
        let size: f64 = step.iter().map(|s| s.abs()).fold(0.0, f64::max);
        // Steps of at most 1: from weights where the logistic is flat (a
        // veto's -100) a full Newton step overshoots.
        let scale = 1.0 / size.max(1.0);
        w.iter_mut().zip(&step).for_each(|(w, s)| *w += s * scale);
        if size < 1e-6 {
            break;
        }
    }
    w
}

/// The shift of the bias that gives the best F1 on `patterns` with a
/// recall of at least `floor` (the lowest shift when none reaches it).
fn best_threshold(patterns: &HashMap<Vec<bool>, (f64, f64)>, w: &[f64], floor: f64) -> f64 {
    let mut best = (f64::MIN, 0.0);
    for step in (-80..=80).rev() {
        let shift = f64::from(step) * 0.05;
        let mut shifted = w.to_vec();
        shifted[0] += shift;
        let (p, r) = precision_recall(patterns, &shifted);
        let f1 = 2.0 * p * r / (p + r).max(f64::EPSILON);
        if r + 1e-9 >= floor && f1 > best.0 {
            best = (f1, shift);
        }
        if best.0 == f64::MIN {
            best.1 = shift;
        }
    }
    best.1
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()));
        let pivot = pivot.unwrap_or(col);
        a.swap(col, pivot);
        b.swap(col, pivot);
        if a[col][col].abs() < 1e-12 {
            continue;
        }
        for row in col + 1..n {
            let f = a[row][col] / a[col][col];
            let (above, below) = a.split_at_mut(row);
            let pivot_row = &above[col][col..];
            below[0][col..]
                .iter_mut()
                .zip(pivot_row)
                .for_each(|(x, p)| *x -= f * p);
            b[row] -= f * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|k| a[i][k] * x[k]).sum();
        x[i] = if a[i][i].abs() < 1e-12 {
            0.0
        } else {
            (b[i] - s) / a[i][i]
        };
    }
    x
}

fn write_weights(path: &Path, rules: &[HeadingRule], table: &[[f64; 4]]) -> Result<(), String> {
    let existing = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out: String = existing
        .lines()
        .take_while(|l| l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    for (r, w) in rules.iter().zip(table) {
        let w: Vec<String> = w.iter().map(|&w| weight_text(w)).collect();
        out.push_str(&format!("{}\t{}\n", r.name, w.join("\t")));
    }
    std::fs::write(path, out).map_err(|e| format!("{}: {e}", path.display()))
}

/// A weight to three decimals, without trailing zeros (`-100`, `0.25`).
fn weight_text(w: f64) -> String {
    let text = format!("{w:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" { "0" } else { text }.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_are_written_without_trailing_zeros() {
        let written: Vec<String> = [-100.0, 10.0, 0.25, -2.8076, -0.0001, 0.0]
            .into_iter()
            .map(weight_text)
            .collect();
        assert_eq!(written, ["-100", "10", "0.25", "-2.808", "0", "0"]);
    }

    #[test]
    fn a_group_that_only_overlaps_a_title_is_left_out() {
        let titles = vec![key("Results of Operations")];
        assert!(overlaps_a_title(
            &titles,
            &key("Results of Operations Net sales rose")
        ));
        assert!(overlaps_a_title(&titles, &key("Results")));
        assert!(!overlaps_a_title(&titles, &key("Liquidity")));
        assert!(!overlaps_a_title(&titles, &key("Re")));
    }

    #[test]
    fn a_title_is_keyed_without_its_number() {
        assert_eq!(key("2.3 Results"), "results");
        assert_eq!(key("Results of Operations"), "resultsofoperations");
    }

    #[test]
    fn each_fold_is_scored_by_weights_fitted_on_the_others() {
        // Five alike folds: a rule that fires on headings, one on text.
        let mut fold = Counts::default();
        fold.patterns.insert(vec![true, false], (18.0, 2.0));
        fold.patterns.insert(vec![false, true], (1.0, 80.0));
        let folds: [[Counts; 4]; FOLDS] = std::array::from_fn(|_| {
            let mut by_class: [Counts; 4] = Default::default();
            by_class[1].absorb(&fold);
            by_class
        });
        let current = [-0.5, 1.0, -1.0];
        assert_eq!(cross_validated(&folds, 1, &current, 1.0), (90.0, 10.0, 5.0));
        // No headings in a class: nothing found, nothing missed.
        assert_eq!(cross_validated(&folds, 2, &current, 1.0), (0.0, 0.0, 0.0));
    }

    #[test]
    fn the_fit_halfs_files_spread_over_every_fold() {
        let mut seen = [0; FOLDS];
        for i in 0..200 {
            seen[fold_of(Path::new(&format!("doc-{i}.pdf")))] += 1;
        }
        assert!(seen.iter().all(|&n| n > 20), "{seen:?}");
    }

    #[test]
    fn the_fit_separates_what_the_rules_separate() {
        // Rule 0 fires on headings, rule 1 on text, mostly.
        let mut p = HashMap::new();
        p.insert(vec![true, false], (90.0, 10.0));
        p.insert(vec![false, true], (5.0, 400.0));
        p.insert(vec![false, false], (5.0, 100.0));
        let mut w = fit_logistic(&p, 3, 1.0);
        w[0] += best_threshold(&p, &w, 0.0);
        assert!(w[1] > 0.0 && w[2] < 0.0, "{w:?}");
        assert!(says_heading(&[true, false], &w) && !says_heading(&[false, true], &w));
        let (precision, recall) = precision_recall(&p, &w);
        assert!((precision - 0.9).abs() < 1e-9 && (recall - 0.9).abs() < 1e-9);
    }
}
