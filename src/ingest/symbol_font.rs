//! Word's inserted symbols (`w:sym`): a font and a code, read as the
//! character it draws. The Symbol font's codes are its own encoding
//! (Adobe's), not Unicode.

/// The character a `w:sym` draws: `code` is hexadecimal. In the Symbol
/// font (codes `F020`-`F0FF`, or `0020`-`00FF`) it is the Unicode
/// character of the Symbol encoding; in another font a code outside the
/// private use area is the character itself. Other fonts' private codes
/// (Wingdings' pictures) give nothing.
pub(super) fn symbol(font: Option<&str>, code: &str) -> Option<char> {
    let code = u32::from_str_radix(code.trim(), 16).ok()?;
    if font.is_some_and(|f| f.trim().eq_ignore_ascii_case("symbol")) {
        let byte = match code {
            0xF020..=0xF0FF => code - 0xF000,
            0x20..=0xFF => code,
            _ => return None,
        };
        return symbol_font(byte as u8);
    }
    char::from_u32(code).filter(|c| !c.is_control() && !('\u{E000}'..='\u{F8FF}').contains(c))
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
