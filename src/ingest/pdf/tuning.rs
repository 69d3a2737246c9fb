//! The numbers the PDF structure rules compare with, named in one place:
//! sizes are relative to the body text's unless a field says points, and
//! counts are of lines, words or characters as each field says. It holds
//! the thresholds of `glyphs.rs` and `pitch.rs` (reading glyphs),
//! `grouping.rs` and `monospace.rs` (blocks, listings), `furniture.rs`
//! (running lines), `text_shape.rs` and `numbering.rs` (a heading's text),
//! `outline.rs`, `class.rs` and the layout (`layout.rs`, `layout/`); the
//! other files' thresholds join it one concern at a time.

/// Declares each threshold once, its doc, type and value, and makes of them
/// the struct [`Tuning`] and its values [`TUNING`].
macro_rules! tuning {
    ($($(#[$doc:meta])* $name:ident: $ty:ty = $value:expr,)*) => {
        /// The thresholds of the PDF structure rules.
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub(super) struct Tuning {
            $($(#[$doc])* pub $name: $ty,)*
        }

        /// The values kb uses.
        pub(super) const TUNING: Tuning = Tuning { $($name: $value,)* };
    };
}

tuning! {
    // Where a block of lines ends (`grouping.rs`); sizes are the lines' own.
    /// The body size of a document without text.
    default_body_size: f32 = 10.0,
    /// Lines whose baselines are closer than this, in points, share a baseline.
    same_baseline_points: f32 = 1.0,
    /// The most words of a table's cell beside a line.
    cell_words: usize = 3,
    /// A Chinese paragraph's first line is indented this many sizes (characters) …
    cjk_indent: f32 = 2.0,
    /// … give or take this share of a size.
    cjk_indent_tolerance: f32 = 0.2,
    /// A listing's lines share a pitch within this share of it …
    listing_pitch_share: f32 = 0.03,
    /// … and follow each other at most this many sizes apart (a blank line or two).
    listing_step: f32 = 3.5,
    /// A change of font size ends a block when it is over this many points …
    size_change_points: f32 = 0.8,
    /// … or this share of the smaller size, whichever is larger.
    size_change_share: f32 = 0.12,
    /// A line ending this many sizes short of full lines' end is a paragraph's last.
    short_of_margin: f32 = 2.0,
    /// A line starting this many sizes right of the block's left edge is indented.
    indent: f32 = 0.8,
    /// A bold line this many times the size of the text under it is a heading.
    larger_bold_ratio: f32 = 1.05,
    /// A numbered line is a title when the text under it runs this many sizes further.
    runs_further: f32 = 1.0,
    /// Lines starting within this many sizes of each other share a column.
    column_reach: f32 = 2.0,
    /// A line of at least this many characters is body text, for where full lines end …
    full_line_chars: usize = 30,
    /// … which is this many tenths of the way up their right edges.
    full_line_tenths: usize = 9,

    // Running headers, footers and page numbers (`furniture.rs`).
    /// A running line repeats on at least this many pages (with as many with text) …
    running_pages: usize = 3,
    /// … and at the page's edge on at least one page in this many.
    running_one_page_in: usize = 10,
    /// A text at pages' edges also inside one page in this many is the page's own.
    inside_one_page_in: usize = 2,
    /// A page's edge in reading order: its first this many lines …
    edge_top_lines: usize = 3,
    /// … and its last this many.
    edge_bottom_lines: usize = 2,
    /// Lines within this many points of height share a height.
    height_bucket_points: f32 = 2.0,
    /// A title this many times the body's size and its running header's stays.
    running_title_ratio: f32 = 1.12,
    /// A printed page number has at most this many digits …
    page_number_digits: usize = 4,
    /// … after a part's prefix of at most this many letters ("F-4") …
    page_prefix_letters: usize = 2,
    /// … or a page-number line at most this many digits ("12 / 40") …
    page_line_digits: usize = 8,
    /// … and characters …
    page_line_chars: usize = 20,
    /// … or a roman numeral of at most this many letters ("xviii").
    roman_page_letters: usize = 6,

    // The shape of a heading's text and its number (`text_shape.rs`, `numbering.rs`).
    /// A heading has this many characters, fewest and most …
    heading_chars: (usize, usize) = (2, 120),
    /// … at most this many words …
    heading_words: usize = 16,
    /// … and at least this many letters, at least half its characters after its number.
    heading_letters: usize = 2,
    /// A filing's item ending on a full stop has more words than this ("Company Inc.").
    item_title_words: usize = 2,
    /// A glossary's acronym before a colon has this many letters, fewest and most.
    acronym_letters: (usize, usize) = (2, 8),
    /// All capitals: at least this many capital letters …
    capitals_letters: usize = 4,
    /// … in at most this many words.
    capitals_words: usize = 10,
    /// Title case: at most this many words.
    title_case_words: usize = 10,
    /// A chapter's number has at most this many digits ("第12章").
    chapter_number_digits: usize = 4,

    // Headings, their levels, statement titles, column headers (`layout.rs`, `layout/`).
    /// Share of the characters set in bold above which bold tells nothing.
    bold_body_share: f32 = 0.4,
    /// A larger type, as headings are set: at least this many times the body size …
    larger_ratio: f32 = 1.12,
    /// … and at least this many points larger.
    larger_points: f32 = 1.0,
    /// Smaller than the body by this ratio: a footnote or a caption, never a heading.
    smaller_ratio: f32 = 0.92,
    /// Two heading sizes closer than this, in points, are one size.
    same_size_points: f32 = 0.6,
    /// A heading in the body's type this many times its size ranks above capitals.
    slightly_larger_ratio: f32 = 1.05,
    /// A word in capitals of at most this many letters in paragraphs is an abbreviation.
    abbreviation_letters: usize = 4,
    /// A group of at least this many words is a paragraph.
    paragraph_words: usize = 10,
    /// A name in capitals learnt from paragraphs has at least this many letters.
    name_letters: usize = 2,
    /// The most lines a heading spans.
    heading_lines: usize = 2,
    /// The most font sizes that rank as heading levels.
    font_levels: usize = 5,
    /// Past `font_levels` sizes, only the sizes of this many headings rank.
    frequent_size_headings: usize = 3,
    /// The deepest heading level.
    deepest_level: u8 = 6,
    /// Cells apart on a line's baseline that make it a table's row, not a heading.
    row_cells: usize = 2,
    /// A block of at least this many words is prose, no row group of a statement.
    prose_words: usize = 12,
    /// The most words of a dateline between a statement's title and its table.
    dateline_words: usize = 8,
    /// The most short blocks between a statement's title and its table …
    statement_lead_blocks: usize = 2,
    /// … and the most words of each.
    statement_lead_words: usize = 12,
    /// The most lines of a statement's title block (one more under a company's name).
    statement_title_lines: usize = 2,
    /// The most words of a company's name over a statement's title.
    company_line_words: usize = 8,
    /// A bold line of at most this many words …
    short_line_words: usize = 8,
    /// … and characters is a heading rather than a bold sentence.
    short_line_chars: usize = 60,
    /// A title page's heading this many points over every later one's heads nothing.
    title_page_points: f32 = 0.5,
    /// A column's header: at most this many points larger than the table's type …
    column_header_points: f32 = 0.5,
    /// … of at most this many words …
    column_header_words: usize = 3,
    /// … starting at least this share of the table's width right of its left edge …
    column_header_indent: f32 = 0.25,
    /// … and at most this many of its own sizes above the line below it.
    column_header_gap: f32 = 2.0,
    /// A character's half width in ems, to estimate a line's centre.
    half_char_width: f32 = 0.25,
    /// A line over a table centred within this share of its width is its title.
    centred_share: f32 = 0.1,

    // Headings taken back (`layout/demote.rs`).
    /// A page's first heading is a section's mark when one alike is this many points larger …
    section_mark_points: f32 = 0.5,
    /// … or follows it within this many blocks of its page.
    section_mark_blocks: usize = 3,
    /// The most digits of a heading's number on one level ("127.").
    section_number_digits: usize = 3,
    /// The most capitals of a letter or roman numbering ("VIII.").
    numbering_letters: usize = 5,
    /// A person's name after an initial: this many words, fewest and most.
    name_words: (usize, usize) = (2, 3),
    /// A signature's place sits at most this many blocks under it.
    signature_blocks: usize = 2,
    /// A cover's display type: at least this many times the body size.
    display_ratio: f32 = 1.5,
    /// A cover has at least this many headings.
    cover_headings: usize = 2,
    /// A block of at least this many characters is a paragraph, no cover line …
    paragraph_chars: usize = 120,
    /// … unless smaller than this share of the body size (a footnote).
    footnote_ratio: f32 = 0.8,
    /// A sentence in the body's type (this share of its size) is a paragraph too.
    body_type_ratio: f32 = 0.95,
    /// A line ending on a full stop with this many characters is a sentence.
    sentence_chars: usize = 30,

    // A document's class (`class.rs`).
    /// The class is told from this many first pages with text …
    class_pages: usize = 3,
    /// … which name at least this many of a filing's phrases in a filing.
    filing_phrases: usize = 3,

    // Reading a page's glyphs (`glyphs.rs`, `pitch.rs`); sizes are the glyphs' own.
    /// An accent's middle may overhang its letter's sides by this many sizes.
    accent_overhang: f32 = 0.05,
    /// A narrow glyph (`i`, `.`) at least this many sizes wide is set monospaced …
    narrow_set_wide: f32 = 0.47,
    /// … and one narrower than this many sizes proportionally.
    narrow_set_narrow: f32 = 0.42,
    /// Glyphs whose mean width is within this share of the narrowest are even.
    even_width_share: f32 = 0.03,

    // Listings (`monospace.rs`); sizes are the lines' own.
    /// A step of this many sizes, fewest and most, is a blank line in a listing.
    blank_line_step: (f32, f32) = (1.9, 3.5),
    /// The most a listing's line is indented, in characters.
    max_indent: f32 = 80.0,

    // A PDF's outline (`outline.rs`).
    /// A bookmark's heading may sit this many points above the point it names.
    bookmark_above: f32 = 4.0,
    /// An outline is thin with fewer than this many bookmarks …
    thin_outline_bookmarks: usize = 3,
    /// … in more than this many pages …
    thin_outline_pages: u32 = 10,
    /// … or fewer than one bookmark per this many pages.
    pages_per_bookmark: u64 = 40,
}
