//! The numbers the PDF structure rules compare with, named in one place:
//! sizes are relative to the body text's unless a field says points, and
//! counts are of lines, words or characters as each field says. Every
//! threshold of `pdf/` is here, grouped by the file or concern it serves.

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
    /// A page's body is the prose's size this many pages either side of it
    /// (a part of a document, an exhibit of a filing, is longer)...
    part_pages: usize = 10,
    /// ...where they hold this many characters of prose (two pages' worth);
    /// a page with this many of its own may be a short part of its own.
    part_chars: usize = 4000,
    part_page_chars: usize = 1000,
    /// Lines whose baselines are closer than this, in points, share a baseline.
    same_baseline_points: f32 = 1.0,
    /// The most words of a table's cell (beside a line, or a column's header).
    cell_words: usize = 3,
    /// A Chinese paragraph's first line is indented this many sizes, give or take this share.
    cjk_indent: (f32, f32) = (2.0, 0.2),
    /// A listing's lines share a pitch within this share of it, a blank line apart at most.
    listing_pitch_share: f32 = 0.03,
    /// A change of font size ends a block over this many points or share of the smaller size.
    size_change: (f32, f32) = (0.8, 0.12),
    /// A line ending this many sizes short of full lines' end is a paragraph's last.
    short_of_margin: f32 = 2.0,
    /// A line starting this many sizes right of the block's left edge is indented.
    indent: f32 = 0.8,
    /// A bold label's text starts within this many sizes after it on its row
    /// (a description list's `Shift`, a quad apart; a table's next column is further).
    run_in_gap: f32 = 2.0,
    /// A numbered line is a title when the text under it runs this many sizes further.
    runs_further: f32 = 1.0,
    /// Lines starting within this many sizes of each other share a column.
    column_reach: f32 = 2.0,
    /// A line of at least this many characters is running text (a sentence, a full line) …
    full_line_chars: usize = 30,
    /// … full lines ending this share of the way up their right edges.
    full_line_share: (usize, usize) = (9, 10),

    // Running headers, footers and page numbers (`furniture.rs`).
    /// A running line repeats on this many pages (with text), at the edge of one page in this many.
    running: (usize, usize) = (3, 10),
    /// A text at pages' edges also inside one page in this many is the page's own.
    inside_one_page_in: usize = 2,
    /// A text at pages' edges whose figures (not its page's number) change
    /// on more than one return in this many says what its pages hold.
    figures_change_in: usize = 3,
    /// A page's edge in reading order: its first this many lines and its last this many.
    edge_lines: (usize, usize) = (3, 2),
    /// Lines within this many points of height share a height.
    height_bucket_points: f32 = 2.0,
    /// A printed page number has this many digits at most, after a prefix of this many letters …
    page_number: (usize, usize) = (4, 2),
    /// … or a page-number line this many digits and characters at most ("12 / 40") …
    page_line: (usize, usize) = (8, 20),
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
    /// All capitals: at least this many capital letters.
    capitals_letters: usize = 4,
    /// The most words of a line in capitals or title case (a heading, a statement's title).
    styled_words: usize = 10,
    /// A chapter's number has at most this many digits ("第12章").
    chapter_number_digits: usize = 4,

    // Headings, their levels, statement titles, column headers (`layout.rs`, `layout/`).
    /// Share of the characters set in bold (or in italics) above which bold
    /// (italics) tells nothing.
    bold_body_share: f32 = 0.4,
    /// A larger type, as headings are set: at least this many times the body size …
    larger_ratio: f32 = 1.12,
    /// … and at least this many points larger.
    larger_points: f32 = 1.0,
    /// Smaller than the body by this ratio: a footnote or a caption, never a heading.
    smaller_ratio: f32 = 0.92,
    /// Code's glyph width as a share of its size, counted in steps of this.
    code_pitch_step: f32 = 0.01,
    /// Two heading sizes closer than this, in points, are one size.
    same_size_points: f32 = 0.6,
    /// Slightly larger type: a bold heading's over its text, a body-font heading above capitals.
    slightly_larger_ratio: f32 = 1.05,
    /// A word in capitals of at most this many letters in paragraphs is an abbreviation.
    abbreviation_letters: usize = 4,
    /// A group of at least this many words is a paragraph.
    paragraph_words: usize = 10,
    /// A name in capitals learnt from paragraphs has at least this many letters.
    name_letters: usize = 2,
    /// The most lines a heading spans.
    heading_lines: usize = 2,
    /// The most font sizes that rank as heading levels; past them, sizes of this many headings.
    font_levels: (usize, usize) = (5, 3),
    /// The deepest heading level.
    deepest_level: u8 = 6,
    /// Cells apart on a line's baseline that make it a table's row, not a heading.
    row_cells: usize = 2,
    /// A block of at least this many words is prose, no row group of a statement.
    prose_words: usize = 12,
    /// A filing's item of at most this many words says nothing ("None."): no statement is in it.
    empty_item_words: usize = 4,
    /// The most short blocks between a statement's title and its table.
    statement_lead_blocks: usize = 2,
    /// The most lines of a statement's title block (one more under a company's name).
    statement_title_lines: usize = 2,
    /// A short line (a bold heading, a dateline, a name) has at most this many words, characters.
    short_line: (usize, usize) = (8, 60),
    /// A column's header starts this share of the table's width in, this many of its sizes above.
    column_header: (f32, f32) = (0.25, 2.0),
    /// A character's half width in ems, to estimate a line's centre.
    half_char_width: f32 = 0.25,
    /// A line over a table centred within this share of its width is its title.
    centred_share: f32 = 0.1,
    /// A heading numbered without the word "Note" is the next note when its
    /// number is at most this many past the current note's (a note's heading
    /// or two may be lost); further on it numbers something else.
    note_number_step: u32 = 3,

    // Headings taken back (`layout/demote.rs`).
    /// A page's first heading marks a section if one alike is larger or within this many blocks.
    section_mark_blocks: usize = 3,
    /// The most digits of a heading's number on one level ("127.").
    section_number_digits: usize = 3,
    /// The most capitals of a letter or roman numbering ("VIII.").
    numbering_letters: usize = 5,
    /// The most digits of a list item's number ("12.") that starts a paragraph.
    enumerator_digits: usize = 2,
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

    // A document's class (`class.rs`).
    /// The class and the title are told from this many first pages with text.
    first_pages: usize = 3,
    /// A filing's first pages name at least this many of a filing's phrases.
    filing_phrases: usize = 3,

    // Reading a page's glyphs (`glyphs.rs`, `pitch.rs`); sizes are the glyphs' own.
    /// An accent's middle may overhang its letter's sides by this many sizes.
    accent_overhang: f32 = 0.05,
    /// A narrow glyph (`i`, `.`) this many sizes wide is monospaced, under this many proportional.
    narrow_set: (f32, f32) = (0.47, 0.42),
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
    /// An outline is thin with fewer than this many bookmarks in more than this many pages …
    thin_outline: (usize, u32) = (3, 10),
    /// … or fewer than one bookmark per this many pages.
    pages_per_bookmark: u64 = 40,

    // Words, spans and lines of a page (`reading.rs`); sizes are the glyphs' own.
    /// In a word, characters are this many sizes apart at most, or this close across a space.
    letter_gap: (f32, f32) = (0.25, 0.01),
    /// A gap with no space in it is one too when at least this many sizes
    /// and this share of the spaced gaps of its line (justified text set tight).
    tight_space: (f32, f32) = (0.1, 0.7),
    /// Spaced gaps a line needs before its others are measured against them.
    tight_space_samples: usize = 2,
    /// A character may start this many sizes left of the one before it in its word.
    back_reach: f32 = 0.3,
    /// A word's characters sit on baselines less than this many sizes apart.
    word_rise: f32 = 0.4,
    /// A character over this many times its word's size sets the word's baseline.
    superscript_ratio: f32 = 1.1,
    /// A footnote's mark is raised this many sizes of its text or more …
    mark_rise: f32 = 0.1,
    /// … and its text is over this many times its size.
    mark_ratio: f32 = 1.25,
    /// Words on baselines within this many sizes share a row.
    row_baseline: f32 = 0.45,
    /// Words further apart than this many sizes are in different spans (a gutter, a cell).
    span_gap: f32 = 0.8,
    /// The most spaces a gap in evenly spaced text is written as.
    max_spaces: f32 = 200.0,
    /// A span is bold when at least this share of its characters are (8 in 10).
    bold_share: (usize, usize) = (8, 10),
    /// A step between rows counts towards the line pitch between this many sizes …
    pitch_steps: (f32, f32) = (0.9, 3.0),
    /// … the median of this many steps where a line wraps, or else of this many steps.
    pitch_samples: (usize, usize) = (3, 5),
    /// A gap over a line: a step over this many sizes and this many line pitches.
    gap: (f32, f32) = (1.5, 1.25),
    /// Type within this many points of another's is the same type; beyond, larger.
    same_type_points: f32 = 0.5,
    /// A font size under this many points is unread: the glyph's height is used.
    least_font_points: f32 = 0.5,
    /// A font weight of at least this is bold.
    bold_weight: u32 = 600,
    /// Colours are told apart by each channel in this many steps, so a
    /// near-black (`#212529`) is black and a link's blue is not.
    ink_levels: u32 = 4,

    // Columns (`reading/columns.rs`).
    /// Rows that leave a gutter empty before it counts as a column break.
    column_rows: usize = 5,
    /// Rows of prose as wide as a column of two that make a side of a gutter a column.
    prose_rows: usize = 3,
    /// Rows without prose, set apart over or under columns, read whole: a table's.
    table_apart_rows: usize = 2,
    /// Prose: a typical row's widest entry spans this share of the text's width, or rows this.
    prose_width: (f32, f32) = (0.25, 0.4),
    /// A gutter this share of the text's width from the usual one takes thinner evidence.
    usual_reach: f32 = 0.03,
    /// Gutters of two pages this many points apart are the same one …
    same_gutter: f32 = 8.0,
    /// … and the usual one when on this many pages and one page with text in this many.
    usual_gutter_pages: (usize, usize) = (3, 10),
    /// Columns as text flows: two sides' baselines this many sizes apart do
    /// not line up, and offsets this many sizes apart differ.
    flow_offset: (f32, f32) = (0.1, 0.04),
    /// A gutter's candidates this many points apart are one.
    same_candidate_points: f32 = 2.0,

    // Letter-spaced text (`spacing.rs`); sizes are the letters' own.
    /// At least this many one-letter words in a row are letter-spaced …
    spaced_letters: usize = 3,
    /// … which spread their letters at most this many sizes (a table's cells stand wider) …
    letter_spacing: f32 = 0.6,
    /// … or at most this many if mostly digits (never one-digit cells) …
    digit_spacing: f32 = 0.35,
    /// … unless more than one letter in this many is in lower case (a formula).
    spaced_lower_in: usize = 3,
    /// A gap this many sizes wider than the letter spacing is a word space.
    word_space: f32 = 0.2,
    /// Small capitals set as two sizes ("R" then "EPORT"): the rest of the
    /// word is at most this share of the capital's size …
    small_caps_size: f32 = 0.92,
    /// … and stands at most this many of the capital's sizes from it.
    small_caps_gap: f32 = 0.35,

    // Table rows (`tables.rs`); sizes are the rows' own.
    /// A title beside a section number has at least this many letters.
    title_letters: usize = 3,
    /// A number stands at most this many sizes from its title: a filing's item, others.
    number_reach: (f32, f32) = (6.0, 2.5),
    /// A span of at most this many characters (or half digits) is a cell.
    cell_chars: usize = 16,
    /// The most characters of a row's first cell and of each other cell.
    row_cell_chars: (usize, usize) = (80, 40),
    /// A justified line cut at its word spaces: at least this many, alike within this many sizes.
    justified_spaces: (usize, f32) = (2, 0.15),
    /// Cell edges within this many sizes line up.
    edge_tolerance: f32 = 0.6,
    /// A row of at least this many cells is wide (an entry that may stand apart).
    wide_row_cells: usize = 3,
    /// A table's rows follow within this many sizes; a wide entry's within this many.
    row_step: (f32, f32) = (2.6, 3.5),
    /// A row's label wrapped over lines may hang this many sizes right of its first line.
    wrap_indent: f32 = 3.0,
    /// A row whose cells wrap below it has a cell of at least this many words.
    wrapped_cell_words: usize = 3,

    // Contents pages (`contents.rs`).
    /// A contents page has this many entries, or this many under its title …
    contents_entries: (usize, usize) = (5, 3),
    /// … the first many making at least this share of its lines with letters (2 in 5) …
    contents_share: (usize, usize) = (2, 5),
    /// … set among its first this many lines (or above its entries).
    contents_title_lines: usize = 4,
    /// Spans on baselines within this many sizes share a row.
    same_row: f32 = 0.5,
    /// An entry's page number has at most this many digits (after a part's letter too).
    page_ref_digits: usize = 3,

    // Labels, statements and the title (`labels.rs`, `statement.rs`, `title.rs`).
    /// A US postal code's digits and those after its hyphen.
    zip_digits: (usize, usize) = (5, 4),
    /// A year's digits.
    year_digits: usize = 4,
    /// The most words of a label: an address, an officer's title, a name, a statement's lead.
    label_words: usize = 12,
    /// The most characters of a footnote's mark ("(a)").
    mark_chars: usize = 4,
    /// The most words of a place's city and of its region ("New York, New York").
    place_words: usize = 3,
    /// The most characters of a table's caption.
    caption_chars: usize = 200,
    /// The most lines and words of a statement's title block …
    statement_block: (usize, usize) = (6, 60),
    /// … whose title is among its first this many lines.
    statement_name_lines: usize = 3,
    /// A title in display type is this many times the body's size.
    display_title_ratio: f32 = 1.3,
    /// The most words of an exhibit's number ("Exhibit 99.1").
    exhibit_words: usize = 3,

    // Leaders, index letters and dates (`text_shape.rs`).
    /// Dots in a row: this many are a leader (an ellipsis); this many first, a span's leader.
    leader_dots: (usize, usize) = (4, 3),
    /// At least this many index letters in alphabetical order are an index's.
    alphabet_run: usize = 5,
    /// The most words of a date alone, and of a date ending a line (month, day, year).
    date_words: usize = 3,

    // Reference entries run into the text (`layout/entries.rs`).
    /// A document shows at least this many before its entries head sections.
    run_in_entries: usize = 5,

    // Chunks (`pack.rs`).
    /// A heading closes the chunk before it with this many tokens; smaller sections share.
    section_tokens: usize = 50,
}
