//! Symbol fonts: fonts that draw signs or pictures at codes of their own,
//! not Unicode's. Word writes their characters as the font's code in the
//! private use area (`F0B7` is Symbol's bullet), in a document's `w:sym`
//! and in the PDFs it makes; read as the character each code draws.

/// A font whose codes are its own encoding, known by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SymbolFont {
    /// Adobe's Symbol (Greek letters, mathematical signs, arrows, the bullet).
    Symbol,
    /// Microsoft's Wingdings: only the list marks, boxes and check marks
    /// are read; its other pictures give nothing.
    Wingdings,
}

impl SymbolFont {
    /// The symbol font a font's name says: `Symbol`, `SymbolMT`,
    /// `ABCDEF+Symbol,Bold`, `Wingdings-Regular`; `Wingdings 2` and 3 are
    /// other encodings.
    pub(crate) fn named(name: &str) -> Option<SymbolFont> {
        let name = name.split_once('+').map_or(name, |(_, rest)| rest);
        let family = name.split([',', '-']).next().unwrap_or("").trim();
        let family = family.to_ascii_lowercase().replace(' ', "");
        match family.as_str() {
            "symbol" | "symbolmt" | "symbolps" => Some(SymbolFont::Symbol),
            "wingdings" => Some(SymbolFont::Wingdings),
            _ => None,
        }
    }

    /// The character this font draws at `code`.
    fn char_at(self, code: u8) -> Option<char> {
        match self {
            SymbolFont::Symbol => symbol_font(code),
            SymbolFont::Wingdings => wingdings(code),
        }
    }
}

/// The character a `w:sym` draws: `code` is hexadecimal. In a symbol font
/// (codes `F020`-`F0FF`, or `0020`-`00FF`) it is the character the font
/// draws there; in another font a code outside the private use area is
/// the character itself.
pub(super) fn symbol(font: Option<&str>, code: &str) -> Option<char> {
    let code = u32::from_str_radix(code.trim(), 16).ok()?;
    if let Some(font) = font.and_then(SymbolFont::named) {
        let byte = match code {
            0xF020..=0xF0FF => code - 0xF000,
            0x20..=0xFF => code,
            _ => return None,
        };
        return font.char_at(byte as u8);
    }
    char::from_u32(code).filter(|c| !c.is_control() && !is_private(*c))
}

/// The character a private-use character of a PDF's text stands for:
/// in a symbol font, `U+F020`-`U+F0FF` is the font's own code (as Word's
/// PDFs map them); in any font, `U+F730`-`U+F739` are Adobe's old-style
/// figures (the names `zerooldstyle`…`nineoldstyle` of its glyph list).
/// `None` for any other character.
pub(crate) fn private_use(font: Option<SymbolFont>, ch: char) -> Option<char> {
    match ch as u32 {
        code @ 0xF020..=0xF0FF => font?.char_at((code - 0xF000) as u8),
        code @ 0xF730..=0xF739 => char::from_digit(code - 0xF730, 10),
        _ => None,
    }
}

/// In Unicode's private use area, where a font's own characters are.
fn is_private(c: char) -> bool {
    ('\u{E000}'..='\u{F8FF}').contains(&c)
}

/// Wingdings' marks, by code: the bullets Word offers for lists, the
/// boxes and check marks of forms (a filing's cover checks `⌧`).
fn wingdings(code: u8) -> Option<char> {
    Some(match code {
        0x6C => '●',
        0x6E => '■',
        0x6F => '□',
        0x71 => '❑',
        0x75 => '◆',
        0x76 => '❖',
        0x78 => '⌧',
        0xA7 => '▪',
        0xA8 => '◻',
        0xD8 => '➢',
        0xFC => '✓',
        0xFD => '☒',
        0xFE => '☑',
        _ => return None,
    })
}

/// The Symbol font's encoding (Adobe's), by code: Greek for the letters,
/// mathematical signs, arrows; codes that draw pieces of large brackets
/// give nothing.
fn symbol_font(code: u8) -> Option<char> {
    Some(match code {
        0x22 => '∀',
        0x24 => '∃',
        0x27 => '∋',
        0x2A => '∗',
        0x2D => '−',
        0x40 => '≅',
        0x5C => '∴',
        0x5E => '⊥',
        0x7E => '∼',
        0x41..=0x5A | 0x61..=0x7A => {
            const UPPER: [char; 26] = [
                'Α', 'Β', 'Χ', 'Δ', 'Ε', 'Φ', 'Γ', 'Η', 'Ι', 'ϑ', 'Κ', 'Λ', 'Μ', 'Ν', 'Ο', 'Π',
                'Θ', 'Ρ', 'Σ', 'Τ', 'Υ', 'ς', 'Ω', 'Ξ', 'Ψ', 'Ζ',
            ];
            const LOWER: [char; 26] = [
                'α', 'β', 'χ', 'δ', 'ε', 'φ', 'γ', 'η', 'ι', 'ϕ', 'κ', 'λ', 'μ', 'ν', 'ο', 'π',
                'θ', 'ρ', 'σ', 'τ', 'υ', 'ϖ', 'ω', 'ξ', 'ψ', 'ζ',
            ];
            if code >= 0x61 {
                LOWER[(code - 0x61) as usize]
            } else {
                UPPER[(code - 0x41) as usize]
            }
        }
        // The radical's extender, a piece of a larger sign.
        0x60 => return None,
        0x20..=0x7D => code as char,
        0xA0 => '€',
        0xA1 => 'ϒ',
        0xA2 => '′',
        0xA3 => '≤',
        0xA4 => '⁄',
        0xA5 => '∞',
        0xA6 => 'ƒ',
        0xA7 => '♣',
        0xA8 => '♦',
        0xA9 => '♥',
        0xAA => '♠',
        0xAB => '↔',
        0xAC => '←',
        0xAD => '↑',
        0xAE => '→',
        0xAF => '↓',
        0xB0 => '°',
        0xB1 => '±',
        0xB2 => '″',
        0xB3 => '≥',
        0xB4 => '×',
        0xB5 => '∝',
        0xB6 => '∂',
        0xB7 => '•',
        0xB8 => '÷',
        0xB9 => '≠',
        0xBA => '≡',
        0xBB => '≈',
        0xBC => '…',
        0xBF => '↵',
        0xC0 => 'ℵ',
        0xC1 => 'ℑ',
        0xC2 => 'ℜ',
        0xC3 => '℘',
        0xC4 => '⊗',
        0xC5 => '⊕',
        0xC6 => '∅',
        0xC7 => '∩',
        0xC8 => '∪',
        0xC9 => '⊃',
        0xCA => '⊇',
        0xCB => '⊄',
        0xCC => '⊂',
        0xCD => '⊆',
        0xCE => '∈',
        0xCF => '∉',
        0xD0 => '∠',
        0xD1 => '∇',
        0xD2 | 0xE2 => '®',
        0xD3 | 0xE3 => '©',
        0xD4 | 0xE4 => '™',
        0xD5 => '∏',
        0xD6 => '√',
        0xD7 => '⋅',
        0xD8 => '¬',
        0xD9 => '∧',
        0xDA => '∨',
        0xDB => '⇔',
        0xDC => '⇐',
        0xDD => '⇑',
        0xDE => '⇒',
        0xDF => '⇓',
        0xE0 => '◊',
        0xE1 => '⟨',
        0xE5 => '∑',
        0xF1 => '⟩',
        0xF2 => '∫',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fonts_name_says_which_symbols_it_draws() {
        let named = SymbolFont::named;
        assert_eq!(named("FAAACF+SymbolMT"), Some(SymbolFont::Symbol));
        assert_eq!(named("Symbol,Bold"), Some(SymbolFont::Symbol));
        assert_eq!(named("Wingdings-Regular"), Some(SymbolFont::Wingdings));
        assert_eq!(named("Wingdings 2"), None);
        assert_eq!(named("CIDFont+F4"), None);
        assert_eq!(named("Helvetica"), None);
    }

    /// A private code reads as what its font draws; in a font whose name
    /// says nothing it stays, but Adobe's old-style figures are digits.
    #[test]
    fn private_codes_read_as_what_the_font_draws() {
        let (symbol, wingdings) = (Some(SymbolFont::Symbol), Some(SymbolFont::Wingdings));
        assert_eq!(private_use(symbol, '\u{F0B7}'), Some('•'));
        assert_eq!(private_use(symbol, '\u{F061}'), Some('α'));
        assert_eq!(private_use(wingdings, '\u{F078}'), Some('⌧'));
        assert_eq!(private_use(wingdings, '\u{F04A}'), None);
        assert_eq!(private_use(None, '\u{F0B7}'), None);
        assert_eq!(private_use(None, '\u{F737}'), Some('7'));
        assert_eq!(private_use(symbol, 'a'), None);
    }
}
