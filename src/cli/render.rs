//! Terminal rendering shared by `mk` and `mf`: color (styles from `anstyle`) only on a
//! terminal and never under `NO_COLOR`, relative times, single-line truncation.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::kb::report::Day;

/// Colors text when enabled; a no-op otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Painter {
    enabled: bool,
}

/// The styles the tools use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Green,
    Red,
    Yellow,
    Cyan,
    Bold,
    Dim,
    /// A diagnostic's `error[rule]` and its carets.
    BoldRed,
    /// A diagnostic's `warning[rule]` and its carets.
    BoldYellow,
    /// A diagnostic's gutter (`-->`, `|`, line numbers), as rustc draws it.
    BoldBlue,
}

impl Style {
    /// The terminal style, from `anstyle` (what clap uses for its own help).
    fn ansi(self) -> anstyle::Style {
        use anstyle::{AnsiColor, Style as S};
        let color = |c: AnsiColor| S::new().fg_color(Some(c.into()));
        match self {
            Style::Green => color(AnsiColor::Green),
            Style::Red => color(AnsiColor::Red),
            Style::Yellow => color(AnsiColor::Yellow),
            Style::Cyan => color(AnsiColor::Cyan),
            Style::Bold => S::new().bold(),
            Style::Dim => S::new().dimmed(),
            Style::BoldRed => color(AnsiColor::Red).bold(),
            Style::BoldYellow => color(AnsiColor::Yellow).bold(),
            Style::BoldBlue => color(AnsiColor::Blue).bold(),
        }
    }
}

impl Painter {
    /// Color as `--color`, `NO_COLOR` and `CLICOLOR_FORCE` say for stdout
    /// ([`crate::cli::output::stdout_color`]).
    pub fn for_stdout() -> Painter {
        Painter {
            enabled: crate::cli::output::stdout_color(),
        }
    }

    /// A painter that always or never colors.
    pub fn new(enabled: bool) -> Painter {
        Painter { enabled }
    }

    /// Whether escapes are emitted.
    pub fn enabled(self) -> bool {
        self.enabled
    }

    /// `text` in the style (or unchanged).
    pub fn paint(self, style: Style, text: &str) -> String {
        if !self.enabled {
            return text.to_string();
        }
        let style = style.ansi();
        format!("{}{text}{}", style.render(), style.render_reset())
    }
}

/// The horizontal rule between entries.
pub const RULE: &str = "---";

/// Seconds since the Unix epoch, now.
pub fn now_unix() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Now as `YYYY-MM-DD HH:MM UTC`.
pub fn utc_now() -> String {
    let now = now_unix();
    let secs = now.rem_euclid(86_400);
    format!(
        "{} {:02}:{:02} UTC",
        Day::of_unix(now),
        secs / 3600,
        secs / 60 % 60
    )
}

/// Parses SQLite's `YYYY-MM-DD HH:MM:SS` (or `YYYY-MM-DDTHH:MM:SS`, or a bare date), UTC.
pub fn parse_datetime(s: &str) -> Option<i64> {
    let s = s.trim();
    let num = |a: usize, b: usize| -> Option<i64> { s.get(a..b)?.parse().ok() };
    let (y, mo, d) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    if s.get(4..5) != Some("-")
        || s.get(7..8) != Some("-")
        || !(1..=12).contains(&mo)
        || !(1..=31).contains(&d)
    {
        return None;
    }
    let (h, mi, sec) = if s.len() >= 19 {
        (num(11, 13)?, num(14, 16)?, num(17, 19)?)
    } else {
        (0, 0, 0)
    };
    Some(Day::from_civil(y, mo, d).0 * 86_400 + h * 3600 + mi * 60 + sec)
}

/// "just now", "5 minutes ago", "3 days ago", …; the input unchanged when it is not a date.
pub fn relative_time(ts: &str, now: i64) -> String {
    let Some(t) = parse_datetime(ts) else {
        return ts.to_string();
    };
    let secs = now - t;
    if secs < 0 {
        return "in the future".to_string();
    }
    let plural = |n: i64, unit: &str| format!("{n} {unit}{} ago", if n == 1 { "" } else { "s" });
    match secs {
        0..=59 => "just now".to_string(),
        60..=3_599 => plural(secs / 60, "minute"),
        3_600..=86_399 => plural(secs / 3_600, "hour"),
        86_400..=1_209_599 => plural(secs / 86_400, "day"),
        1_209_600..=5_183_999 => plural(secs / 604_800, "week"),
        5_184_000..=31_535_999 => plural(secs / 2_592_000, "month"),
        _ => plural(secs / 31_536_000, "year"),
    }
}

/// One line of at most `max` characters: whitespace runs collapse, an ellipsis marks the cut.
pub fn one_line(s: &str, max: usize) -> String {
    let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// A list of numbers, eliding after `max`: `614, 615, 620 (+12 more)`.
pub fn number_list(nums: &[i64], max: usize) -> String {
    let shown: Vec<String> = nums.iter().take(max).map(i64::to_string).collect();
    let mut s = shown.join(", ");
    if nums.len() > max {
        s.push_str(&format!(" (+{} more)", nums.len() - max));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_times() {
        let now = parse_datetime("2025-03-10 12:00:00").unwrap();
        assert_eq!(relative_time("2025-03-10 11:59:30", now), "just now");
        assert_eq!(relative_time("2025-03-10 11:00:00", now), "1 hour ago");
        assert_eq!(relative_time("2025-03-07 12:00:00", now), "3 days ago");
        assert_eq!(relative_time("2025-02-10 12:00:00", now), "4 weeks ago");
        assert_eq!(relative_time("2024-03-10 12:00:00", now), "1 year ago");
        assert_eq!(relative_time("not a date", now), "not a date");
        assert_eq!(relative_time("2025-03-11", now), "in the future");
    }

    #[test]
    fn epoch_is_zero() {
        assert_eq!(parse_datetime("1970-01-01 00:00:00"), Some(0));
        assert_eq!(parse_datetime("2000-03-01T00:00:00"), Some(951_868_800));
    }

    #[test]
    fn truncation_is_char_safe() {
        assert_eq!(one_line("a\n  b", 10), "a b");
        assert_eq!(one_line("∀ n ∈ ℕ, n ≤ n", 5), "∀ n …");
        assert_eq!(number_list(&[1, 2, 3], 2), "1, 2 (+1 more)");
    }

    #[test]
    fn painter_off_is_plain() {
        assert_eq!(Painter::new(false).paint(Style::Red, "x"), "x");
        assert_eq!(
            Painter::new(true).paint(Style::Red, "x"),
            "\x1b[31mx\x1b[0m"
        );
    }
}
