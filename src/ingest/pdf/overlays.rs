//! Slides built up over several pages (beamer's overlays, a presentation's
//! builds printed one state per page) repeat each page's lines, in place,
//! on the next page, which adds some or shows the same again. Read once,
//! from the page that shows them all: a search finds the slide once and
//! cites its complete page, and a slide title repeated on three steps is
//! not mistaken for a running header (see `furniture`). No text is lost:
//! every line dropped is on the next page, at the same place.

use super::page::Line;

/// How far apart, in points, a line's left edge and baseline may be on two
/// pages and still be the same line in place (the same slide typeset
/// twice puts it at the same coordinates; other pages' lines are rarely
/// within a point of each other in both).
const IN_PLACE: f32 = 1.0;

/// Empties each page whose every line is on the next page in place (an
/// earlier step of the same slide); returns their indices.
pub(super) fn drop_overlay_steps(pages: &mut [Vec<Line>]) -> Vec<usize> {
    let steps: Vec<usize> = pages
        .windows(2)
        .enumerate()
        .filter(|(_, pair)| is_step_of(&pair[0], &pair[1]))
        .map(|(i, _)| i)
        .collect();
    for &i in &steps {
        pages[i].clear();
    }
    steps
}

/// True when `page` has text and each of its lines is on `next` in place.
fn is_step_of(page: &[Line], next: &[Line]) -> bool {
    let has_text = page
        .iter()
        .any(|l| l.text.chars().any(char::is_alphanumeric));
    has_text
        && page.iter().all(|l| {
            next.iter().any(|n| {
                n.text == l.text && (n.x - l.x).abs() <= IN_PLACE && (n.y - l.y).abs() <= IN_PLACE
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str, x: f32, y: f32) -> Line {
        Line {
            text: text.into(),
            size: 11.0,
            x,
            end: x + 100.0,
            y,
            ..Default::default()
        }
    }

    fn slide(items: usize) -> Vec<Line> {
        let mut lines = vec![line("Results", 20.0, 30.0)];
        for i in 0..items {
            lines.push(line(&format!("Finding {i}"), 30.0, 60.0 + 20.0 * i as f32));
        }
        lines.push(line("3 / 12", 300.0, 260.0));
        lines
    }

    #[test]
    fn each_step_of_a_slide_built_up_gives_way_to_the_next() {
        let mut pages = vec![slide(1), slide(2), slide(3), slide(3), slide(1)];
        assert_eq!(drop_overlay_steps(&mut pages), vec![0, 1, 2]);
        assert!(pages[..3].iter().all(Vec::is_empty));
        assert_eq!(pages[3].len(), 5, "the complete step stays");
        assert_eq!(pages[4].len(), 3, "a page after a fuller one stays");
    }

    #[test]
    fn pages_that_share_lines_elsewhere_or_differ_in_one_stay() {
        let moved: Vec<Line> = slide(2)
            .into_iter()
            .map(|mut l| {
                l.y += 5.0;
                l
            })
            .collect();
        let mut numbered = slide(2);
        numbered.last_mut().unwrap().text = "4 / 12".into();
        let mut pages = vec![slide(1), moved, slide(1), numbered, vec![], vec![]];
        assert!(drop_overlay_steps(&mut pages).is_empty());
    }

    /// Through pdfium: a slide built up over three pages is read once, from
    /// its last step, title and all.
    #[test]
    fn a_slide_built_up_over_pages_is_read_once_from_its_last_step() {
        use crate::config::ChunkingConfig;
        use crate::ingest::pdf::testpdf::{heading, para, TestPdf};
        use crate::ingest::pdf::tests::{engine, extract_bytes};
        use crate::ingest::test_support::ctx;
        let Some(e) = engine() else { return };
        let bullets = [
            "Revenue grew by a tenth over the year.",
            "Margins held despite higher freight costs.",
            "Two new plants opened in the north.",
        ];
        let mut pdf = TestPdf::new().no_running_header();
        for step in 1..=3 {
            let mut blocks = vec![heading("Quarterly results", 20.0)];
            blocks.extend(bullets[..step].iter().map(|b| para(b)));
            pdf = pdf.page(blocks);
        }
        let pdf = pdf.page(vec![
            heading("Outlook", 20.0),
            para("Orders point to a stronger spring."),
        ]);
        let ex = extract_bytes(&pdf.to_bytes(), &e).unwrap();
        let doc = crate::ingest::pdf::build(
            std::path::Path::new("deck.pdf"),
            &ex,
            &ctx(&ChunkingConfig::default()),
        )
        .unwrap();
        let with = |words: &str| -> Vec<Option<u32>> {
            doc.chunks
                .iter()
                .filter(|c| c.text.contains(words))
                .map(|c| c.meta.page)
                .collect()
        };
        assert_eq!(with("Revenue grew"), [Some(3)], "{:#?}", doc.chunks);
        assert_eq!(with("Two new plants"), [Some(3)]);
        assert_eq!(with("stronger spring"), [Some(4)]);
        assert!(
            doc.chunks
                .iter()
                .any(|c| c.meta.section.as_deref() == Some("Quarterly results")),
            "{:#?}",
            doc.chunks
        );
    }
}
