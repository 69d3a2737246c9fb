//! The numbers the PDF structure rules compare with, named in one place:
//! sizes are relative to the body text's unless a field says points, and
//! counts are of lines, words or characters as each field says. It holds
//! the thresholds of `glyphs.rs` and `pitch.rs` (reading glyphs),
//! `grouping.rs` and `monospace.rs` (blocks, listings), `furniture.rs`
//! (running lines), `text_shape.rs` and `numbering.rs` (a heading's text),
//! `outline.rs`, `class.rs` and the layout (`layout.rs`, `layout/`); the
//! other files' thresholds join it one concern at a time.

/// The thresholds of the PDF structure rules.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Tuning {
    // Where a block of lines ends (`grouping.rs`); sizes are the lines' own.
    /// The body size of a document without text.
    pub default_body_size: f32,
    /// Lines whose baselines are closer than this, in points, share a baseline.
    pub same_baseline_points: f32,
    /// The most words of a table's cell beside a line.
    pub cell_words: usize,
    /// A Chinese paragraph's first line is indented this many sizes (characters) …
    pub cjk_indent: f32,
    /// … give or take this share of a size.
    pub cjk_indent_tolerance: f32,
    /// A listing's lines share a pitch within this share of it …
    pub listing_pitch_share: f32,
    /// … and follow each other at most this many sizes apart (a blank line or two).
    pub listing_step: f32,
    /// A change of font size ends a block when it is over this many points …
    pub size_change_points: f32,
    /// … or this share of the smaller size, whichever is larger.
    pub size_change_share: f32,
    /// A line ending this many sizes short of full lines' end is a paragraph's last.
    pub short_of_margin: f32,
    /// A line starting this many sizes right of the block's left edge is indented.
    pub indent: f32,
    /// A bold line this many times the size of the text under it is a heading.
    pub larger_bold_ratio: f32,
    /// A numbered line is a title when the text under it runs this many sizes further.
    pub runs_further: f32,
    /// Lines starting within this many sizes of each other share a column.
    pub column_reach: f32,
    /// A line of at least this many characters is body text, for where full lines end …
    pub full_line_chars: usize,
    /// … which is this many tenths of the way up their right edges.
    pub full_line_tenths: usize,

    // Running headers, footers and page numbers (`furniture.rs`).
    /// A running line repeats on at least this many pages (with as many with text) …
    pub running_pages: usize,
    /// … and at the page's edge on at least one page in this many.
    pub running_one_page_in: usize,
    /// A text at pages' edges also inside one page in this many is the page's own.
    pub inside_one_page_in: usize,
    /// A page's edge in reading order: its first this many lines …
    pub edge_top_lines: usize,
    /// … and its last this many.
    pub edge_bottom_lines: usize,
    /// Lines within this many points of height share a height.
    pub height_bucket_points: f32,
    /// A title this many times the body's size and its running header's stays.
    pub running_title_ratio: f32,
    /// A printed page number has at most this many digits …
    pub page_number_digits: usize,
    /// … after a part's prefix of at most this many letters ("F-4") …
    pub page_prefix_letters: usize,
    /// … or a page-number line at most this many digits ("12 / 40") …
    pub page_line_digits: usize,
    /// … and characters …
    pub page_line_chars: usize,
    /// … or a roman numeral of at most this many letters ("xviii").
    pub roman_page_letters: usize,

    // The shape of a heading's text and its number (`text_shape.rs`, `numbering.rs`).
    /// A heading has this many characters, fewest and most …
    pub heading_chars: (usize, usize),
    /// … at most this many words …
    pub heading_words: usize,
    /// … and at least this many letters, at least half its characters after its number.
    pub heading_letters: usize,
    /// A filing's item ending on a full stop has more words than this ("Company Inc.").
    pub item_title_words: usize,
    /// A glossary's acronym before a colon has this many letters, fewest and most.
    pub acronym_letters: (usize, usize),
    /// All capitals: at least this many capital letters …
    pub capitals_letters: usize,
    /// … in at most this many words.
    pub capitals_words: usize,
    /// Title case: at most this many words.
    pub title_case_words: usize,
    /// A chapter's number has at most this many digits ("第12章").
    pub chapter_number_digits: usize,

    // Headings, their levels, statement titles, column headers (`layout.rs`, `layout/`).
    /// Share of the characters set in bold above which bold tells nothing.
    pub bold_body_share: f32,
    /// A larger type, as headings are set: at least this many times the body size …
    pub larger_ratio: f32,
    /// … and at least this many points larger.
    pub larger_points: f32,
    /// Smaller than the body by this ratio: a footnote or a caption, never a heading.
    pub smaller_ratio: f32,
    /// Two heading sizes closer than this, in points, are one size.
    pub same_size_points: f32,
    /// A heading in the body's type this many times its size ranks above capitals.
    pub slightly_larger_ratio: f32,
    /// A word in capitals of at most this many letters in paragraphs is an abbreviation.
    pub abbreviation_letters: usize,
    /// A group of at least this many words is a paragraph.
    pub paragraph_words: usize,
    /// A name in capitals learnt from paragraphs has at least this many letters.
    pub name_letters: usize,
    /// The most lines a heading spans.
    pub heading_lines: usize,
    /// The most font sizes that rank as heading levels.
    pub font_levels: usize,
    /// Past `font_levels` sizes, only the sizes of this many headings rank.
    pub frequent_size_headings: usize,
    /// The deepest heading level.
    pub deepest_level: u8,
    /// Cells apart on a line's baseline that make it a table's row, not a heading.
    pub row_cells: usize,
    /// A block of at least this many words is prose, no row group of a statement.
    pub prose_words: usize,
    /// The most words of a dateline between a statement's title and its table.
    pub dateline_words: usize,
    /// The most short blocks between a statement's title and its table …
    pub statement_lead_blocks: usize,
    /// … and the most words of each.
    pub statement_lead_words: usize,
    /// The most lines of a statement's title block (one more under a company's name).
    pub statement_title_lines: usize,
    /// The most words of a company's name over a statement's title.
    pub company_line_words: usize,
    /// A bold line of at most this many words …
    pub short_line_words: usize,
    /// … and characters is a heading rather than a bold sentence.
    pub short_line_chars: usize,
    /// A title page's heading this many points over every later one's heads nothing.
    pub title_page_points: f32,
    /// A column's header: at most this many points larger than the table's type …
    pub column_header_points: f32,
    /// … of at most this many words …
    pub column_header_words: usize,
    /// … starting at least this share of the table's width right of its left edge …
    pub column_header_indent: f32,
    /// … and at most this many of its own sizes above the line below it.
    pub column_header_gap: f32,
    /// A character's half width in ems, to estimate a line's centre.
    pub half_char_width: f32,
    /// A line over a table centred within this share of its width is its title.
    pub centred_share: f32,

    // Headings taken back (`layout/demote.rs`).
    /// A page's first heading is a section's mark when one alike is this many points larger …
    pub section_mark_points: f32,
    /// … or follows it within this many blocks of its page.
    pub section_mark_blocks: usize,
    /// The most digits of a heading's number on one level ("127.").
    pub section_number_digits: usize,
    /// The most capitals of a letter or roman numbering ("VIII.").
    pub numbering_letters: usize,
    /// A person's name after an initial: this many words, fewest and most.
    pub name_words: (usize, usize),
    /// A signature's place sits at most this many blocks under it.
    pub signature_blocks: usize,
    /// A cover's display type: at least this many times the body size.
    pub display_ratio: f32,
    /// A cover has at least this many headings.
    pub cover_headings: usize,
    /// A block of at least this many characters is a paragraph, no cover line …
    pub paragraph_chars: usize,
    /// … unless smaller than this share of the body size (a footnote).
    pub footnote_ratio: f32,
    /// A sentence in the body's type (this share of its size) is a paragraph too.
    pub body_type_ratio: f32,
    /// A line ending on a full stop with this many characters is a sentence.
    pub sentence_chars: usize,

    // A document's class (`class.rs`).
    /// The class is told from this many first pages with text …
    pub class_pages: usize,
    /// … which name at least this many of a filing's phrases in a filing.
    pub filing_phrases: usize,

    // Reading a page's glyphs (`glyphs.rs`, `pitch.rs`); sizes are the glyphs' own.
    /// An accent's middle may overhang its letter's sides by this many sizes.
    pub accent_overhang: f32,
    /// A narrow glyph (`i`, `.`) at least this many sizes wide is set monospaced …
    pub narrow_set_wide: f32,
    /// … and one narrower than this many sizes proportionally.
    pub narrow_set_narrow: f32,
    /// Glyphs whose mean width is within this share of the narrowest are even.
    pub even_width_share: f32,

    // Listings (`monospace.rs`); sizes are the lines' own.
    /// A step of this many sizes, fewest and most, is a blank line in a listing.
    pub blank_line_step: (f32, f32),
    /// The most a listing's line is indented, in characters.
    pub max_indent: f32,

    // A PDF's outline (`outline.rs`).
    /// A bookmark's heading may sit this many points above the point it names.
    pub bookmark_above: f32,
    /// An outline is thin with fewer than this many bookmarks …
    pub thin_outline_bookmarks: usize,
    /// … in more than this many pages …
    pub thin_outline_pages: u32,
    /// … or fewer than one bookmark per this many pages.
    pub pages_per_bookmark: u64,
}

/// The values kb uses.
pub(super) const TUNING: Tuning = Tuning {
    default_body_size: 10.0,
    same_baseline_points: 1.0,
    cell_words: 3,
    cjk_indent: 2.0,
    cjk_indent_tolerance: 0.2,
    listing_pitch_share: 0.03,
    listing_step: 3.5,
    size_change_points: 0.8,
    size_change_share: 0.12,
    short_of_margin: 2.0,
    indent: 0.8,
    larger_bold_ratio: 1.05,
    runs_further: 1.0,
    column_reach: 2.0,
    full_line_chars: 30,
    full_line_tenths: 9,
    bold_body_share: 0.4,
    larger_ratio: 1.12,
    larger_points: 1.0,
    smaller_ratio: 0.92,
    same_size_points: 0.6,
    running_pages: 3,
    running_one_page_in: 10,
    inside_one_page_in: 2,
    edge_top_lines: 3,
    edge_bottom_lines: 2,
    height_bucket_points: 2.0,
    running_title_ratio: 1.12,
    page_number_digits: 4,
    page_prefix_letters: 2,
    page_line_digits: 8,
    page_line_chars: 20,
    roman_page_letters: 6,
    heading_chars: (2, 120),
    heading_words: 16,
    heading_letters: 2,
    item_title_words: 2,
    acronym_letters: (2, 8),
    capitals_letters: 4,
    capitals_words: 10,
    title_case_words: 10,
    chapter_number_digits: 4,
    slightly_larger_ratio: 1.05,
    abbreviation_letters: 4,
    paragraph_words: 10,
    name_letters: 2,
    heading_lines: 2,
    font_levels: 5,
    frequent_size_headings: 3,
    deepest_level: 6,
    row_cells: 2,
    prose_words: 12,
    dateline_words: 8,
    statement_lead_blocks: 2,
    statement_lead_words: 12,
    statement_title_lines: 2,
    company_line_words: 8,
    short_line_words: 8,
    short_line_chars: 60,
    title_page_points: 0.5,
    column_header_points: 0.5,
    column_header_words: 3,
    column_header_indent: 0.25,
    column_header_gap: 2.0,
    half_char_width: 0.25,
    centred_share: 0.1,
    section_mark_points: 0.5,
    section_mark_blocks: 3,
    section_number_digits: 3,
    numbering_letters: 5,
    name_words: (2, 3),
    signature_blocks: 2,
    display_ratio: 1.5,
    cover_headings: 2,
    paragraph_chars: 120,
    footnote_ratio: 0.8,
    body_type_ratio: 0.95,
    sentence_chars: 30,
    class_pages: 3,
    filing_phrases: 3,
    accent_overhang: 0.05,
    narrow_set_wide: 0.47,
    narrow_set_narrow: 0.42,
    even_width_share: 0.03,
    blank_line_step: (1.9, 3.5),
    max_indent: 80.0,
    bookmark_above: 4.0,
    thin_outline_bookmarks: 3,
    thin_outline_pages: 10,
    pages_per_bookmark: 40,
};
