//! Excel's number formats: a workbook stores a date as a serial number of
//! days and a percentage as a fraction, and shows them as its cell's style
//! says. A date is indexed as an ISO date (`2023-07-15`, one spelling an
//! agent can read whatever the cell's order of day and month), a time or a
//! percentage as shown (`14:30`, `12.5%`), so it is found by what the user
//! sees; other numbers keep their stored digits.

use super::container::{attr, walk_xml, Xml};
use super::IngestError;

/// How a number is shown, as far as indexing cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    Number,
    Date,
    /// A time of day, on a 12-hour clock (`AM/PM`) or not.
    Time {
        am_pm: bool,
    },
    DateTime {
        am_pm: bool,
    },
    /// A duration counted in its largest unit (`[h]:mm`: hours past 24).
    Elapsed(Unit),
    /// A percentage with this many decimals.
    Percent(usize),
}

/// The unit an elapsed time counts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Hours,
    Minutes,
    Seconds,
}

/// Each cell style's way of showing numbers (`xl/styles.xml`), and the
/// workbook's date system.
#[derive(Debug, Default)]
pub struct Styles {
    by_style: Vec<Shown>,
    /// Serial 0 is 1904-01-01 (old Mac workbooks), not 1899-12-31.
    pub date1904: bool,
}

impl Styles {
    /// The styles of `xl/styles.xml`: its custom formats (`numFmts`) and the
    /// cell formats (`cellXfs`) a cell's `s` attribute counts into.
    pub fn read(xml: &[u8]) -> Result<Styles, IngestError> {
        let mut custom: Vec<(u32, Shown)> = Vec::new();
        let mut by_style = Vec::new();
        let mut in_cell_xfs = false;
        walk_xml(xml, "xl/styles.xml", |e| {
            match e {
                Xml::Start {
                    name: "numFmt",
                    attrs,
                } => {
                    if let (Some(id), Some(code)) =
                        (attr(attrs, "numFmtId"), attr(attrs, "formatCode"))
                    {
                        if let Ok(id) = id.parse() {
                            custom.push((id, of_code(code)));
                        }
                    }
                }
                Xml::Start {
                    name: "cellXfs", ..
                } => in_cell_xfs = true,
                Xml::End { name: "cellXfs" } => in_cell_xfs = false,
                Xml::Start { name: "xf", attrs } if in_cell_xfs => {
                    let id: u32 = attr(attrs, "numFmtId")
                        .and_then(|i| i.parse().ok())
                        .unwrap_or(0);
                    let shown = custom
                        .iter()
                        .find(|(c, _)| *c == id)
                        .map_or_else(|| built_in(id), |(_, s)| *s);
                    by_style.push(shown);
                }
                _ => {}
            }
            Ok(())
        })?;
        Ok(Styles {
            by_style,
            date1904: false,
        })
    }

    /// The text of a number cell of style `style` whose stored value is
    /// `raw`: as shown for dates, times and percentages, else `raw`.
    pub fn text(&self, style: Option<&str>, raw: &str) -> String {
        let shown = style
            .and_then(|s| s.parse::<usize>().ok())
            .and_then(|s| self.by_style.get(s))
            .copied()
            .unwrap_or(Shown::Number);
        let Ok(value) = raw.trim().parse::<f64>() else {
            return raw.to_string();
        };
        match shown {
            Shown::Number => raw.to_string(),
            Shown::Percent(decimals) => {
                let scale = 10f64.powi(decimals as i32);
                let shown = (value * 100.0 * scale).round() / scale;
                format!("{shown:.decimals$}%")
            }
            Shown::Elapsed(unit) => elapsed_text(value, unit).unwrap_or_else(|| raw.to_string()),
            Shown::Date | Shown::Time { .. } | Shown::DateTime { .. } => {
                date_text(value, shown, self.date1904).unwrap_or_else(|| raw.to_string())
            }
        }
    }
}

/// The formats Excel numbers below 164 without writing them out.
fn built_in(id: u32) -> Shown {
    match id {
        9 => Shown::Percent(0),
        10 => Shown::Percent(2),
        14..=17 => Shown::Date,
        18 | 19 => Shown::Time { am_pm: true },
        20 | 21 | 45 | 47 => Shown::Time { am_pm: false },
        46 => Shown::Elapsed(Unit::Hours),
        22 => Shown::DateTime { am_pm: false },
        _ => Shown::Number,
    }
}

/// What a format code shows: its first section's tokens outside quotes,
/// escapes and `[...]` (colours, locales, elapsed hours count: `[h]:mm`).
fn of_code(code: &str) -> Shown {
    let mut date = false;
    let mut time = false;
    let mut elapsed = None;
    let mut percent = false;
    let mut decimals = 0;
    let mut after_point = false;
    let mut chars = code.chars();
    while let Some(c) = chars.next() {
        match c {
            ';' => break,
            '"' => {
                for c in chars.by_ref() {
                    if c == '"' {
                        break;
                    }
                }
            }
            '\\' | '_' | '*' => {
                chars.next();
            }
            '[' => {
                // `[h]`, `[mm]`, `[ss]`: an elapsed time; other brackets
                // are colours and locales.
                let inner: String = chars.by_ref().take_while(|&c| c != ']').collect();
                let lower = inner.to_ascii_lowercase();
                let first = lower.chars().next();
                if lower.chars().all(|c| Some(c) == first) {
                    elapsed = elapsed.or(match first {
                        Some('h') => Some(Unit::Hours),
                        Some('m') => Some(Unit::Minutes),
                        Some('s') => Some(Unit::Seconds),
                        _ => None,
                    });
                }
            }
            'y' | 'Y' | 'd' | 'D' => date = true,
            'h' | 'H' | 's' | 'S' => time = true,
            '%' => percent = true,
            '.' => after_point = true,
            '0' | '#' | '?' if after_point => decimals += 1,
            _ => {}
        }
    }
    let first = code.split(';').next().unwrap_or("").to_ascii_lowercase();
    let am_pm = first.contains("am/pm") || first.contains("a/p");
    match (date, time, percent) {
        (false, _, _) if elapsed.is_some() => Shown::Elapsed(elapsed.unwrap_or(Unit::Hours)),
        (true, true, _) => Shown::DateTime { am_pm },
        (true, false, _) => Shown::Date,
        (false, true, _) => Shown::Time { am_pm },
        (false, false, true) => Shown::Percent(decimals),
        // `mmm` alone (a month) is a date too.
        _ if first.contains("mm") => Shown::Date,
        _ => Shown::Number,
    }
}

/// A serial date as ISO text: `2023-07-15`, `14:30`, `2023-07-15 14:30`
/// (seconds when it has them); `None` for a serial no calendar holds.
fn date_text(serial: f64, shown: Shown, date1904: bool) -> Option<String> {
    if !(0.0..2_958_466.0).contains(&serial) {
        return None;
    }
    let total_seconds = (serial * 86_400.0).round() as i64;
    let (days, seconds) = (total_seconds / 86_400, total_seconds % 86_400);
    let am_pm = matches!(
        shown,
        Shown::Time { am_pm: true } | Shown::DateTime { am_pm: true }
    );
    let clock = {
        let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
        let (h, half) = match (am_pm, h) {
            (false, h) => (format!("{h:02}"), ""),
            (true, 0) => ("12".into(), " AM"),
            (true, h @ 1..=11) => (h.to_string(), " AM"),
            (true, 12) => ("12".into(), " PM"),
            (true, h) => ((h - 12).to_string(), " PM"),
        };
        if s == 0 {
            format!("{h}:{m:02}{half}")
        } else {
            format!("{h}:{m:02}:{s:02}{half}")
        }
    };
    if matches!(shown, Shown::Time { .. }) {
        return Some(clock);
    }
    // Days since 1970-01-01. The 1900 system counts a 1900-02-29 that never
    // was (serial 60), so serials after it are one day ahead.
    let unix_days = if date1904 {
        days - 24_107
    } else if days >= 61 {
        days - 25_569
    } else if days == 60 {
        return None;
    } else {
        days - 25_568
    };
    let (y, m, d) = civil_from_days(unix_days);
    Some(if matches!(shown, Shown::DateTime { .. }) {
        format!("{y:04}-{m:02}-{d:02} {clock}")
    } else {
        format!("{y:04}-{m:02}-{d:02}")
    })
}

/// A duration of `days` counted in `unit` (`37:15` for 1.55 days in
/// hours), seconds shown when it has them.
fn elapsed_text(days: f64, unit: Unit) -> Option<String> {
    if !(0.0..1e7).contains(&days) {
        return None;
    }
    let total = (days * 86_400.0).round() as i64;
    let (m, s) = (total / 60 % 60, total % 60);
    Some(match unit {
        Unit::Hours if s == 0 => format!("{}:{m:02}", total / 3600),
        Unit::Hours => format!("{}:{m:02}:{s:02}", total / 3600),
        Unit::Minutes => format!("{}:{s:02}", total / 60),
        Unit::Seconds => total.to_string(),
    })
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_codes_say_what_a_number_shows() {
        assert_eq!(of_code("yyyy-mm-dd"), Shown::Date);
        assert_eq!(of_code("[$-409]mmmm d, yyyy;@"), Shown::Date);
        assert_eq!(of_code("mmm"), Shown::Date);
        assert_eq!(of_code("h:mm AM/PM"), Shown::Time { am_pm: true });
        assert_eq!(of_code("hh:mm:ss"), Shown::Time { am_pm: false });
        assert_eq!(of_code("[h]:mm"), Shown::Elapsed(Unit::Hours));
        assert_eq!(of_code("[mm]:ss"), Shown::Elapsed(Unit::Minutes));
        assert_eq!(
            of_code("dd/mm/yyyy hh:mm"),
            Shown::DateTime { am_pm: false }
        );
        assert_eq!(of_code("0.0%"), Shown::Percent(1));
        assert_eq!(of_code("#,##0.00_);[Red](#,##0.00)"), Shown::Number);
        assert_eq!(of_code("\"Day \"0"), Shown::Number);
        assert_eq!(of_code("[Red]0.00"), Shown::Number);
        assert_eq!(built_in(14), Shown::Date);
        assert_eq!(built_in(3), Shown::Number);
    }

    #[test]
    fn serials_become_the_dates_excel_shows() {
        assert_eq!(
            date_text(45122.0, Shown::Date, false).unwrap(),
            "2023-07-15"
        );
        assert_eq!(date_text(1.0, Shown::Date, false).unwrap(), "1900-01-01");
        assert_eq!(date_text(59.0, Shown::Date, false).unwrap(), "1900-02-28");
        assert_eq!(date_text(61.0, Shown::Date, false).unwrap(), "1900-03-01");
        assert_eq!(date_text(0.0, Shown::Date, true).unwrap(), "1904-01-01");
        let (clock, clock_12) = (Shown::Time { am_pm: false }, Shown::Time { am_pm: true });
        let date_time = Shown::DateTime { am_pm: false };
        assert_eq!(
            date_text(45122.604166667, date_time, false).unwrap(),
            "2023-07-15 14:30"
        );
        assert_eq!(date_text(0.5, clock, false).unwrap(), "12:00");
        assert_eq!(date_text(0.375, clock, false).unwrap(), "09:00");
        assert_eq!(date_text(0.604166667, clock_12, false).unwrap(), "2:30 PM");
        assert_eq!(date_text(0.0, clock_12, false).unwrap(), "12:00 AM");
        assert_eq!(elapsed_text(1.552106, Unit::Hours).unwrap(), "37:15:02");
        assert_eq!(elapsed_text(2.25, Unit::Hours).unwrap(), "54:00");
        assert_eq!(elapsed_text(95.0 / 1440.0, Unit::Minutes).unwrap(), "95:00");
        assert_eq!(date_text(-1.0, Shown::Date, false), None);
    }

    #[test]
    fn cells_are_shown_by_their_style() {
        let xml = br#"<styleSheet><numFmts count="1"><numFmt numFmtId="164" formatCode="0.0%"/></numFmts>
            <cellStyleXfs><xf numFmtId="14"/></cellStyleXfs>
            <cellXfs><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="4"/></cellXfs></styleSheet>"#;
        let styles = Styles::read(xml).unwrap();
        assert_eq!(styles.text(Some("0"), "45122"), "45122");
        assert_eq!(styles.text(Some("1"), "45122"), "2023-07-15");
        assert_eq!(styles.text(Some("2"), "0.125"), "12.5%");
        assert_eq!(styles.text(Some("3"), "1234.5"), "1234.5");
        assert_eq!(styles.text(None, "45122"), "45122");
        assert_eq!(styles.text(Some("9"), "0.5"), "0.5");
        assert_eq!(styles.text(Some("1"), "n/a"), "n/a");
    }
}
