//! What a line's type style says: a line alone in italics.

use super::*;

/// A short line alone in italics heads what follows it (an API
/// reference's events, a report's lowest heading level), under a heading
/// in the body's type set upright; a sentence set in italics stays text.
#[test]
fn a_short_line_alone_in_italics_is_a_heading() {
    let italic = |t: &str, y: f32| Line {
        italic: true,
        ..body(t, y, true)
    };
    let page = Page {
        lines: vec![
            Line {
                bold: true,
                ..body("Class: ChildProcess#", 60.0, true)
            },
            prose(80.0),
            italic("Event: 'close'#", 110.0),
            prose(130.0),
            italic("Note that the stream closes after this event.", 160.0),
            italic("Event: 'exit'#", 190.0),
            prose(210.0),
        ],
        ..Page::default()
    };
    assert_eq!(
        headings(&blocks(&[page])),
        vec![
            ("Class: ChildProcess#", Some(1)),
            ("Event: 'close'#", Some(2)),
            ("Event: 'exit'#", Some(2))
        ]
    );
}
