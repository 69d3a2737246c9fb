//! What a line's type style says: a line alone in italics, or in
//! another face or colour than the body's.

use super::*;

/// A line of the body's size alone in `face` and `ink`, bold or not.
fn set_in(face: u32, ink: u32, bold: bool, t: &str, y: f32) -> Line {
    Line {
        bold,
        face,
        ink,
        ..body(t, y, true)
    }
}

/// The same line in a larger type, as a document's larger headings are.
fn larger(l: Line) -> Line {
    Line { size: 16.0, ..l }
}

/// The text's prose, in `face`.
fn prose_in(face: u32, y: f32) -> Line {
    Line { face, ..prose(y) }
}

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

/// A line alone in another face than the body's, the face its larger
/// headings are set in (a sans-serif heading over serif text, bold like
/// the text's own bold words), heads what follows it, though too long for
/// "a short bold line"; a line of the text's face, in bold, stays text;
/// and so does one in a face no larger heading shares (a chart's labels),
/// or in code's monospaced face.
#[test]
fn a_line_alone_in_the_headings_face_is_a_heading() {
    let (serif, sans, labels) = (1, 2, 3);
    let in_face = |face: u32, t: &str, y: f32| set_in(face, 0, true, t, y);
    let heading = |t: &str, y: f32| larger(in_face(sans, t, y));
    let text = |y: f32| prose_in(serif, y);
    let page = Page {
        lines: vec![
            heading("General Information", 40.0),
            text(60.0),
            in_face(
                sans,
                "Are there copyright restrictions on the use of Python?",
                90.0,
            ),
            text(110.0),
            in_face(
                serif,
                "A bold line of the text's own face that holds ten words or more",
                140.0,
            ),
            text(160.0),
            in_face(
                labels,
                "A label in the face of a chart that no heading shares",
                190.0,
            ),
            text(210.0),
            Line {
                mono: true,
                bold: false,
                ..in_face(sans, "Channel options and their defaults", 240.0)
            },
            text(260.0),
            heading("Python in the Real World", 290.0),
            text(310.0),
            text(330.0),
        ],
        ..Page::default()
    };
    assert_eq!(
        headings(&blocks(&[page])),
        vec![
            ("General Information", Some(1)),
            (
                "Are there copyright restrictions on the use of Python?",
                Some(2)
            ),
            ("Python in the Real World", Some(1))
        ]
    );
}

/// A line in the body's face but in the colour its larger headings are set
/// in heads what follows it, though too long for "a short bold line"; the
/// same line in the text's colour, or in a colour no larger heading
/// shares, stays text.
#[test]
fn a_line_alone_in_the_headings_colour_is_a_heading() {
    let (serif, blue, green) = (1, 6, 9);
    let inked = |ink: u32, t: &str, y: f32| set_in(serif, ink, true, t, y);
    let heading = |t: &str, y: f32| larger(inked(blue, t, y));
    let text = |y: f32| prose_in(serif, y);
    let long = "Significant accounting policies and the application of critical estimates";
    let page = Page {
        lines: vec![
            heading("Results of Operations", 40.0),
            text(60.0),
            inked(blue, long, 90.0),
            text(110.0),
            inked(0, long, 140.0),
            text(160.0),
            inked(green, long, 190.0),
            text(210.0),
            heading("Liquidity and Capital Resources", 240.0),
            text(260.0),
            text(280.0),
        ],
        ..Page::default()
    };
    assert_eq!(
        headings(&blocks(&[page])),
        vec![
            ("Results of Operations", Some(1)),
            (long, Some(2)),
            ("Liquidity and Capital Resources", Some(1))
        ]
    );
}

/// An API reference names its entries in code's type, set in the colour of
/// its larger headings: a lone line of code in that colour heads the text
/// under it. A lone line of code in the text's colour, or in a colour no
/// larger heading shares, is a listing still.
#[test]
fn a_line_of_code_in_the_headings_colour_is_a_heading() {
    let (sans, serif, mono, blue, green) = (2, 1, 3, 6, 9);
    let heading = |t: &str, y: f32| larger(set_in(sans, blue, false, t, y));
    let code = |ink: u32, t: &str, y: f32| Line {
        mono: true,
        ..set_in(mono, ink, false, t, y)
    };
    let text = |y: f32| prose_in(serif, y);
    let page = Page {
        lines: vec![
            heading("Child process", 40.0),
            text(60.0),
            code(blue, "subprocess.channel.ref()", 90.0),
            text(110.0),
            code(0, "subprocess.channel.unref()", 140.0),
            text(160.0),
            code(green, "subprocess.connected", 190.0),
            text(210.0),
            heading("Synchronous process creation", 240.0),
            text(260.0),
            text(280.0),
        ],
        ..Page::default()
    };
    let b = blocks(&[page]);
    assert_eq!(
        headings(&b),
        vec![
            ("Child process", Some(1)),
            ("subprocess.channel.ref()", Some(2)),
            ("Synchronous process creation", Some(1))
        ]
    );
    assert_eq!(b.iter().filter(|b| b.code).count(), 2);
}

/// A reference made from web pages sets its sections' headings in the
/// body's type: bold, then italics under them, then its entries named in
/// code, upright in the headings' blue, under those; an entry set in bold
/// ranks as bold words do. An entry's name right after the listing that
/// ends the entry before it is no line of that listing: a line of code in
/// another colour, after a blank line, over text. A comment in a colour
/// inside a listing stays in it.
#[test]
fn body_type_headings_rank_over_entries_in_plain_code() {
    let (sans, serif, mono, blue) = (2, 1, 3, 6);
    let code = |ink: u32, t: &str, y: f32, gap: bool| Line {
        mono: true,
        pitch: 6.6,
        gap,
        ..set_in(mono, ink, false, t, y)
    };
    let italic = |t: &str, y: f32| Line {
        italic: true,
        ..set_in(sans, blue, false, t, y)
    };
    let text = |y: f32| prose_in(serif, y);
    let page = Page {
        lines: vec![
            larger(set_in(sans, blue, true, "Diagnostics Channel#", 40.0)),
            text(60.0),
            set_in(sans, blue, true, "Public API#", 90.0),
            italic("Overview#", 120.0),
            text(140.0),
            code(
                0,
                "const channel = diagnostics_channel.channel('my-channel');",
                170.0,
                true,
            ),
            code(blue, "// Subscribe to the channel", 194.0, true),
            code(0, "channel.subscribe(onMessage);", 206.0, false),
            code(blue, "diagnostics_channel.channel(name)#", 230.0, true),
            text(250.0),
            italic("Class: Channel#", 280.0),
            text(300.0),
            code(0, "channel.publish({ some: 'data' });", 330.0, true),
            code(blue, "channel.publish(message)#", 354.0, true),
            text(374.0),
            Line {
                bold: true,
                ..code(blue, "diagnostics_channel.subscribe(name)#", 404.0, true)
            },
            text(424.0),
            larger(set_in(sans, blue, true, "Built-in Channels#", 454.0)),
            text(474.0),
        ],
        ..Page::default()
    };
    let b = blocks(&[page]);
    assert_eq!(
        headings(&b),
        vec![
            ("Diagnostics Channel#", Some(1)),
            ("Public API#", Some(2)),
            ("Overview#", Some(3)),
            ("diagnostics_channel.channel(name)#", Some(4)),
            ("Class: Channel#", Some(3)),
            ("channel.publish(message)#", Some(4)),
            ("diagnostics_channel.subscribe(name)#", Some(2)),
            ("Built-in Channels#", Some(1)),
        ]
    );
    let listings: Vec<&str> = b
        .iter()
        .filter(|b| b.code)
        .map(|b| b.text.as_str())
        .collect();
    assert_eq!(listings.len(), 2);
    assert!(listings[0].contains("// Subscribe to the channel\nchannel.subscribe"));
}

/// A manual page names each attribute in code, in its headings' blue and
/// italics, in the size its listings are set in, a point under its prose:
/// no smaller than its code, and in code's own case. A name too short to
/// show its pitch (`eol`: one narrow glyph) is code by its glyphs' width,
/// the listings'. A line of that size in the text's face stays text; so
/// does a term in bold code right over its description, while a heading
/// in bold code set apart from its text is one.
#[test]
fn a_name_in_code_the_size_of_the_listings_is_a_heading() {
    let (sans, serif, blue) = (2, 1, 6);
    let code = |t: &str, y: f32, mono: bool, pitch: f32| Line {
        size: 10.0,
        italic: true,
        ink: blue,
        mono,
        pitch,
        ..body(t, y, true)
    };
    let listing = |t: &str, y: f32| Line {
        italic: false,
        ink: 0,
        ..code(t, y, true, 6.0)
    };
    let page = Page {
        lines: vec![
            larger(set_in(
                sans,
                blue,
                true,
                "Checking-out and checking-in",
                40.0,
            )),
            prose_in(serif, 60.0),
            code("text", 90.0, true, 6.0),
            prose_in(serif, 110.0),
            listing("*.txt text eol=crlf", 140.0),
            prose_in(serif, 160.0),
            code("eol", 190.0, false, 6.0),
            prose_in(serif, 210.0),
            code("delta", 220.0, false, 5.0),
            prose_in(serif, 240.0),
            Line {
                size: 10.0,
                italic: true,
                ..set_in(serif, blue, false, "ident", 270.0)
            },
            prose_in(serif, 290.0),
            larger(set_in(sans, blue, true, "Generating diff text", 320.0)),
            prose_in(serif, 340.0),
            Line {
                bold: true,
                ..listing("SMTPHeloError", 370.0)
            },
            Line {
                gap: false,
                ..prose_in(serif, 383.0)
            },
            Line {
                bold: true,
                ..listing("Known issues and FAQs", 410.0)
            },
            prose_in(serif, 440.0),
        ],
        ..Page::default()
    };
    assert_eq!(
        headings(&blocks(&[page])),
        vec![
            ("Checking-out and checking-in", Some(1)),
            ("text", Some(2)),
            ("eol", Some(2)),
            ("Generating diff text", Some(1)),
            ("Known issues and FAQs", Some(2)),
        ]
    );
}

/// Where headings are set larger than the text, a short line in the
/// text's own type says no more than its title case (an API reference's
/// `History` over its table of versions): text. One more sign (bold)
/// makes it a heading. In a document that sets every heading in its
/// body's type, title case alone heads a section.
#[test]
fn title_case_alone_heads_only_a_document_of_body_type_headings() {
    let plain = |t: &str, y: f32| body(t, y, true);
    let bold = |t: &str, y: f32| Line {
        bold: true,
        ..plain(t, y)
    };
    let sized = Page {
        lines: vec![
            larger(plain("Child process", 40.0)),
            prose(60.0),
            plain("History", 90.0),
            prose(110.0),
            bold("Asynchronous process creation", 140.0),
            prose(160.0),
        ],
        ..Page::default()
    };
    assert_eq!(
        headings(&blocks(&[sized])),
        vec![
            ("Child process", Some(1)),
            ("Asynchronous process creation", Some(2))
        ]
    );
    let in_body_type = Page {
        lines: vec![plain("History", 40.0), prose(60.0)],
        ..Page::default()
    };
    assert_eq!(
        headings(&blocks(&[in_body_type])),
        vec![("History", Some(1))]
    );
}
