//! Reference entries run into the text. A reference names each entry as a
//! manual page does ("Name page.margin.top — The top margin"); where its
//! lines lost their breaks, the entries run on through its paragraphs
//! ("… of all pages. Namepage.margin.top — The top …"). Each entry then
//! heads a section one level under the one it is in, on the page it starts on.

use super::super::block::{Block, Cue, Role};
use super::super::lexicon::{ENTRY_DASHES, ENTRY_LABELS};
use super::super::tuning::TUNING;

/// An entry in a text: where its label and its text (the name on) start.
#[derive(Debug, PartialEq)]
struct Entry {
    label: usize,
    name: String,
    text: usize,
}

/// The text blocks cut at each entry, a heading of its name before it;
/// only where the document shows `TUNING.run_in_entries` (one is a dash).
pub(super) fn run_in_entries(blocks: &mut Vec<Block>) {
    let prose = |b: &Block| b.role == Role::Text && b.level.is_none() && !b.table && !b.code;
    let entries_of = |b: &Block| entries(if prose(b) { &b.text } else { "" });
    let found: Vec<Vec<Entry>> = blocks.iter().map(entries_of).collect();
    if found.iter().map(Vec::len).sum::<usize>() < TUNING.run_in_entries {
        return;
    }
    let mut level = 0;
    let mut out = Vec::with_capacity(blocks.len());
    for (block, found) in std::mem::take(blocks).into_iter().zip(found) {
        level = block.level.unwrap_or(level);
        out.extend(cut(block, &found, (level + 1).min(TUNING.deepest_level)));
    }
    *blocks = out;
}

/// `block` cut before each of `found`: the text before the first, then
/// each entry's heading at `level` and its text.
fn cut(block: Block, found: &[Entry], level: u8) -> Vec<Block> {
    let Some(first) = found.first() else {
        return vec![block];
    };
    let lead = block.text[..first.label].trim();
    let mut out = Vec::new();
    if !lead.is_empty() {
        out.push(block.with(lead.to_string(), Role::Text));
    }
    for (i, entry) in found.iter().enumerate() {
        let end = found.get(i + 1).map_or(block.text.len(), |next| next.label);
        let mut heading = block.with(entry.name.clone(), Role::Heading(Cue::Body));
        heading.level = Some(level);
        out.push(heading);
        out.push(block.with(block.text[entry.text..end].trim().to_string(), Role::Text));
    }
    out
}

/// The entries of `text`, in order: a word before a spaced dash, led by a
/// label glued to it or the word before it.
fn entries(text: &str) -> Vec<Entry> {
    let spaced = |i: usize| text[..i].ends_with(' ') && text[i..].chars().nth(1) == Some(' ');
    let dashes = ENTRY_DASHES.iter().flat_map(|d| text.match_indices(*d));
    let ends = dashes.map(|(i, _)| i).filter(|&i| spaced(i));
    let mut out: Vec<Entry> = ends.filter_map(|i| labelled(&text[..i - 1])).collect();
    out.sort_by_key(|e| e.label);
    out
}

/// The entry whose name ends `before`: the label glued to its front (the
/// rightmost, longest, not a whole label: "Nombre"), else the word before.
fn labelled(before: &str) -> Option<Entry> {
    let start = before.rfind(char::is_whitespace).map_or(0, |w| w + 1);
    let word = &before[start..];
    let at = |label: &&str| word.rfind(*label).map(|at| (at, label.len()));
    let label_only = |at: usize| ENTRY_LABELS.contains(&&word[at..]);
    let glued = ENTRY_LABELS
        .iter()
        .filter_map(at)
        .filter(|&(at, n)| at + n < word.len() && !label_only(at));
    let (label, text) = match glued.max() {
        Some((at, n)) => (start + at, start + at + n),
        None => {
            let rest = before[..start].trim_end();
            let label = rest.rfind(char::is_whitespace).map_or(0, |w| w + 1);
            let named = !word.is_empty() && ENTRY_LABELS.contains(&&rest[label..]);
            named.then_some((label, start))?
        }
    };
    let name = before[text..].to_string();
    Some(Entry { label, name, text })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(t: &str) -> Block {
        Block {
            page: 7,
            text: t.to_string(),
            ..Block::default()
        }
    }

    #[test]
    fn an_entry_is_a_name_between_its_label_and_a_dash() {
        let t = "of all pages. Namepage.margin.top — The top margin Synopsis 0.5in \
                 See also Name page.width — The width";
        let found = entries(t);
        let names: Vec<&str> = found.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["page.margin.top", "page.width"]);
        assert_eq!(&t[found[0].label..found[0].text], "Name");
        assert_eq!(&t[found[1].label..found[1].text], "Name ");
        // A dash in a sentence, or a label with no name, is no entry.
        assert!(entries("the rest — as always — waits. Filename — a file").is_empty());
        assert!(entries("Nombre — cinq. Name — a name").is_empty());
    }

    #[test]
    fn entries_head_sections_under_the_section_they_are_in_only_when_many() {
        let entry = |i: usize| format!("Namep.{i} — Sets {i}. ");
        let many: String = (0..TUNING.run_in_entries).map(entry).collect();
        let mut heading = text("Parameters");
        (heading.role, heading.level) = (Role::Heading(Cue::Larger), Some(2));
        let mut blocks = vec![heading.clone(), text(&format!("Intro. {many}"))];
        run_in_entries(&mut blocks);
        assert_eq!(blocks.len(), 2 + 2 * TUNING.run_in_entries);
        assert_eq!(blocks[1].text, "Intro.");
        assert_eq!((blocks[2].text.as_str(), blocks[2].level), ("p.0", Some(3)));
        assert_eq!(
            (blocks[3].text.as_str(), blocks[3].page),
            ("p.0 — Sets 0.", 7)
        );
        let few: String = (0..TUNING.run_in_entries - 1).map(entry).collect();
        let mut blocks = vec![heading, text(&few)];
        run_in_entries(&mut blocks);
        assert_eq!(blocks.len(), 2);
    }
}
