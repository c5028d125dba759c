//! The report's charts, as inline SVG written by hand.
//!
//! Colours are CSS classes (`k-proven`, `s-open`, …) that the page's stylesheet fills from a
//! colour-blind-safe palette (Okabe–Ito), light or dark as the reader's system prefers; text
//! uses `currentColor`. Every chart is `role="img"` with a `<title>` and a `<desc>` that says
//! what it shows in words; the page puts the chart's numbers in a table beside it.

use std::fmt::Write as _;

use super::esc;
use crate::kb::report::{AttemptKind, Day, FactDay, TechniqueRate, Week};

/// A chart's accessible name and description, and the id its elements are named from.
pub struct Label<'a> {
    pub id: &'a str,
    pub title: &'a str,
    pub desc: &'a str,
}

fn open(out: &mut String, label: &Label<'_>, width: f64, height: f64) {
    let _ = write!(
        out,
        r#"<svg class="chart" id="{id}" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" aria-labelledby="{id}-t {id}-d" xmlns="http://www.w3.org/2000/svg"><title id="{id}-t">{}</title><desc id="{id}-d">{}</desc>"#,
        esc(label.title),
        esc(label.desc),
        id = label.id,
    );
}

/// Horizontal grid lines with their value ticks on the left axis, every `step` from 0 to
/// `top_value`, for the charts whose y axis counts (`y` maps a value to its height).
fn value_grid(
    out: &mut String,
    left: f64,
    plot_w: f64,
    top_value: f64,
    step: f64,
    y: impl Fn(f64) -> f64,
) {
    let mut t = 0.0;
    while t <= top_value + 1e-9 {
        let _ = write!(
            out,
            r#"<line class="grid" x1="{left}" x2="{0:.1}" y1="{2:.1}" y2="{2:.1}"/><text class="tick" x="{1:.1}" y="{3:.1}" text-anchor="end">{4}</text>"#,
            left + plot_w,
            left - 4.0,
            y(t),
            y(t) + 4.0,
            fmt_num(t)
        );
        t += step;
    }
}

/// A step of 1, 2 or 5 times a power of ten giving about `ticks` intervals up to `max`.
pub fn nice_step(max: f64, ticks: f64) -> f64 {
    if max <= 0.0 {
        return 1.0;
    }
    let raw = max / ticks;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    step.max(1.0)
}

fn fmt_num(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else {
        format!("{v:.1}")
    }
}

/// Horizontal bars: one labelled bar per item, its value after it, an x axis in `unit`.
pub fn hbar(label: &Label<'_>, items: &[(String, i64, String)], unit: &str) -> String {
    let (left, right, top, row, axis) = (120.0, 48.0, 8.0, 24.0, 40.0);
    let plot = 300.0;
    let width = left + plot + right;
    let height = top + row * items.len().max(1) as f64 + axis;
    let max = items.iter().map(|i| i.1).max().unwrap_or(0).max(1) as f64;
    let step = nice_step(max, 4.0);
    let top_value = (max / step).ceil() * step;
    let x = |v: f64| left + plot * v / top_value;
    let mut out = String::new();
    open(&mut out, label, width, height);
    let base = top + row * items.len().max(1) as f64;
    let mut t = 0.0;
    while t <= top_value + 1e-9 {
        let _ = write!(
            out,
            r#"<line class="grid" x1="{0:.1}" x2="{0:.1}" y1="{top}" y2="{base}"/><text class="tick" x="{0:.1}" y="{1}" text-anchor="middle">{2}</text>"#,
            x(t),
            base + 14.0,
            fmt_num(t)
        );
        t += step;
    }
    let _ = write!(
        out,
        r#"<text class="axis-label" x="{:.1}" y="{}" text-anchor="middle">{}</text>"#,
        left + plot / 2.0,
        base + 32.0,
        esc(unit)
    );
    if items.is_empty() {
        let _ = write!(
            out,
            r#"<text class="empty" x="{:.1}" y="{}" text-anchor="middle">nothing to show</text>"#,
            left + plot / 2.0,
            top + row / 2.0 + 4.0
        );
    }
    for (i, (name, value, class)) in items.iter().enumerate() {
        let y = top + row * i as f64;
        let _ = write!(
            out,
            r#"<text class="cat" x="{}" y="{:.1}" text-anchor="end">{}</text><rect class="{}" x="{left}" y="{:.1}" width="{:.1}" height="{}"><title>{}: {value}</title></rect><text class="val" x="{:.1}" y="{:.1}">{value}</text>"#,
            left - 6.0,
            y + row / 2.0 + 4.0,
            esc(name),
            esc(class),
            y + 4.0,
            (x(*value as f64) - left).max(0.5),
            row - 8.0,
            esc(name),
            x(*value as f64) + 4.0,
            y + row / 2.0 + 4.0,
        );
    }
    let _ = write!(
        out,
        r#"<line class="axis" x1="{left}" x2="{left}" y1="{top}" y2="{base}"/></svg>"#
    );
    out
}

/// Stacked bars of attempts per week by outcome, every week from the first to the last.
pub fn weeks(label: &Label<'_>, weeks: &[Week]) -> String {
    let (left, right, top, bottom) = (48.0, 12.0, 12.0, 62.0);
    let plot_w = 660.0;
    let plot_h = 200.0;
    let width = left + plot_w + right;
    let height = top + plot_h + bottom;
    let max = weeks
        .iter()
        .map(|w| w.counts.total())
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let step = nice_step(max, 5.0);
    let top_value = (max / step).ceil() * step;
    let y = |v: f64| top + plot_h - plot_h * v / top_value;
    let mut out = String::new();
    open(&mut out, label, width, height);
    value_grid(&mut out, left, plot_w, top_value, step, y);
    let n = weeks.len().max(1);
    let slot = plot_w / n as f64;
    let bar = (slot * 0.8).max(1.0);
    let every = n.div_ceil(8);
    for (i, w) in weeks.iter().enumerate() {
        let x = left + slot * i as f64 + (slot - bar) / 2.0;
        let mut acc = 0.0;
        for kind in AttemptKind::ALL {
            let v = w.counts.get(kind) as f64;
            if v == 0.0 {
                continue;
            }
            let _ = write!(
                out,
                r#"<rect class="k-{}" x="{x:.1}" y="{:.1}" width="{bar:.1}" height="{:.1}"><title>week of {}: {} {}</title></rect>"#,
                kind.as_str(),
                y(acc + v),
                y(acc) - y(acc + v),
                w.start,
                v,
                kind_word(kind)
            );
            acc += v;
        }
        if i % every == 0 {
            let cx = left + slot * (i as f64 + 0.5);
            let _ = write!(
                out,
                r#"<line class="axis" x1="{cx:.1}" x2="{cx:.1}" y1="{0:.1}" y2="{1:.1}"/><text class="tick" x="{cx:.1}" y="{2:.1}" text-anchor="middle">{3}</text>"#,
                top + plot_h,
                top + plot_h + 4.0,
                top + plot_h + 16.0,
                w.start
            );
        }
    }
    if weeks.is_empty() {
        let _ = write!(
            out,
            r#"<text class="empty" x="{:.1}" y="{:.1}" text-anchor="middle">no dated attempts</text>"#,
            left + plot_w / 2.0,
            top + plot_h / 2.0
        );
    }
    let _ = write!(
        out,
        r#"<line class="axis" x1="{left}" x2="{0:.1}" y1="{1:.1}" y2="{1:.1}"/><line class="axis" x1="{left}" x2="{left}" y1="{top}" y2="{1:.1}"/><text class="axis-label" x="{2:.1}" y="{3:.1}" text-anchor="middle">week (starting Monday)</text><text class="axis-label" transform="translate(12 {4:.1}) rotate(-90)" text-anchor="middle">attempts</text>"#,
        left + plot_w,
        top + plot_h,
        left + plot_w / 2.0,
        top + plot_h + 34.0,
        top + plot_h / 2.0,
    );
    // Legend.
    let mut lx = left;
    let ly = top + plot_h + 50.0;
    for kind in AttemptKind::ALL {
        let word = kind_word(kind);
        let _ = write!(
            out,
            r#"<rect class="k-{}" x="{lx:.1}" y="{:.1}" width="10" height="10"/><text class="tick" x="{:.1}" y="{ly:.1}">{word}</text>"#,
            kind.as_str(),
            ly - 9.0,
            lx + 14.0,
        );
        lx += 22.0 + 7.0 * word.len() as f64;
    }
    out.push_str("</svg>");
    out
}

/// The words for an attempt's outcome.
pub fn kind_word(kind: AttemptKind) -> &'static str {
    match kind {
        AttemptKind::Proven => "proven",
        AttemptKind::Partial => "partial",
        AttemptKind::BudgetReached => "budget reached",
        AttemptKind::Failed => "failed",
    }
}

/// The cumulative number of facts proven, as steps over the days, from `before`.
pub fn facts(label: &Label<'_>, days: &[FactDay], before: i64) -> String {
    let (left, right, top, bottom) = (56.0, 40.0, 12.0, 44.0);
    let plot_w = 640.0;
    let plot_h = 180.0;
    let width = left + plot_w + right;
    let height = top + plot_h + bottom;
    let (first, last) = match (days.first(), days.last()) {
        (Some(f), Some(l)) => (f.day.0, l.day.0),
        _ => (0, 0),
    };
    // A single day still gets a visible span: the week that ends on it (a span past the last
    // day would draw the total on days that have not come yet).
    let (from, to) = if last > first {
        (first, last)
    } else {
        (first - 6, first)
    };
    let max = days.last().map_or(before, |d| d.total).max(1) as f64;
    let step = nice_step(max, 5.0);
    let top_value = (max / step).ceil() * step;
    let x = |d: i64| left + plot_w * (d - from) as f64 / (to - from) as f64;
    let y = |v: f64| top + plot_h - plot_h * v / top_value;
    let mut out = String::new();
    open(&mut out, label, width, height);
    value_grid(&mut out, left, plot_w, top_value, step, y);
    // Date ticks: about six, on whole days.
    let span = (to - from).max(1);
    let every = (span as f64 / 6.0).ceil().max(1.0) as i64;
    // No fact, no days: dates there would be made up (the week before 1970-01-01).
    let mut d = if days.is_empty() { to + 1 } else { from };
    while d <= to {
        let _ = write!(
            out,
            r#"<line class="axis" x1="{0:.1}" x2="{0:.1}" y1="{1:.1}" y2="{2:.1}"/><text class="tick" x="{0:.1}" y="{3:.1}" text-anchor="middle">{4}</text>"#,
            x(d),
            top + plot_h,
            top + plot_h + 4.0,
            top + plot_h + 16.0,
            Day(d)
        );
        d += every;
    }
    if days.is_empty() {
        let _ = write!(
            out,
            r#"<text class="empty" x="{:.1}" y="{:.1}" text-anchor="middle">no verified facts in range</text>"#,
            left + plot_w / 2.0,
            top + plot_h / 2.0
        );
    } else {
        let mut path = format!("M{:.1},{:.1}", x(from), y(before as f64));
        for f in days {
            let _ = write!(path, "H{:.1}V{:.1}", x(f.day.0), y(f.total as f64));
        }
        let _ = write!(path, "H{:.1}", x(to));
        let _ = write!(out, r#"<path class="line" d="{path}"/>"#);
        for f in days {
            let _ = write!(
                out,
                r#"<circle class="dot" cx="{:.1}" cy="{:.1}" r="3"><title>{}: {} new, {} in all</title></circle>"#,
                x(f.day.0),
                y(f.total as f64),
                f.day,
                f.new,
                f.total
            );
        }
    }
    let _ = write!(
        out,
        r#"<line class="axis" x1="{left}" x2="{0:.1}" y1="{1:.1}" y2="{1:.1}"/><line class="axis" x1="{left}" x2="{left}" y1="{top}" y2="{1:.1}"/><text class="axis-label" x="{2:.1}" y="{3:.1}" text-anchor="middle">day first proven</text><text class="axis-label" transform="translate(14 {4:.1}) rotate(-90)" text-anchor="middle">facts proven (total)</text></svg>"#,
        left + plot_w,
        top + plot_h,
        left + plot_w / 2.0,
        top + plot_h + 36.0,
        top + plot_h / 2.0,
    );
    out
}

/// Success rates with their 95 % Wilson intervals, one row per technique.
pub fn forest(label: &Label<'_>, rates: &[&TechniqueRate]) -> String {
    let (left, right, top, row, axis) = (210.0, 70.0, 22.0, 20.0, 40.0);
    let plot = 300.0;
    let width = left + plot + right;
    let height = top + row * rates.len().max(1) as f64 + axis;
    let base = top + row * rates.len().max(1) as f64;
    let x = |v: f64| left + plot * v.clamp(0.0, 1.0);
    let mut out = String::new();
    open(&mut out, label, width, height);
    for p in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let _ = write!(
            out,
            r#"<line class="grid" x1="{0:.1}" x2="{0:.1}" y1="{top}" y2="{base}"/><text class="tick" x="{0:.1}" y="{1}" text-anchor="middle">{2}%</text>"#,
            x(p),
            base + 14.0,
            (p * 100.0) as i64
        );
    }
    let _ = write!(
        out,
        r#"<text class="axis-label" x="{:.1}" y="{}" text-anchor="middle">success rate (dot) and 95% Wilson interval (bar)</text><text class="tick" x="{:.1}" y="12">successes/n</text><text class="tick" x="{:.1}" y="12" text-anchor="end">technique</text>"#,
        left + plot / 2.0,
        base + 32.0,
        left + plot + 8.0,
        left - 6.0,
    );
    for (i, r) in rates.iter().enumerate() {
        let cy = top + row * i as f64 + row / 2.0;
        let _ = write!(
            out,
            r#"<text class="cat" x="{:.1}" y="{:.1}" text-anchor="end">{}</text><line class="ci" x1="{:.1}" x2="{:.1}" y1="{cy:.1}" y2="{cy:.1}"/><circle class="dot" cx="{:.1}" cy="{cy:.1}" r="4"><title>{}: {:.0}% of {}, 95% interval {:.0}–{:.0}%</title></circle><text class="val" x="{:.1}" y="{:.1}">{}/{}</text>"#,
            left - 6.0,
            cy + 4.0,
            esc(&short(&r.technique, 30)),
            x(r.low),
            x(r.high),
            x(r.rate),
            esc(&r.technique),
            r.rate * 100.0,
            fmt_num(r.samples),
            r.low * 100.0,
            r.high * 100.0,
            left + plot + 8.0,
            cy + 4.0,
            fmt_num(r.successes),
            fmt_num(r.samples),
        );
    }
    if rates.is_empty() {
        let _ = write!(
            out,
            r#"<text class="empty" x="{:.1}" y="{:.1}" text-anchor="middle">no evidence yet</text>"#,
            left + plot / 2.0,
            top + row / 2.0 + 4.0
        );
    }
    let _ = write!(
        out,
        r#"<line class="axis" x1="{left}" x2="{left}" y1="{top}" y2="{base}"/></svg>"#
    );
    out
}

/// A problem's attempts on a time line: one dot per attempt, coloured by outcome.
pub fn timeline(label: &Label<'_>, points: &[(Day, AttemptKind, String)]) -> String {
    let (left, right, top) = (12.0, 12.0, 8.0);
    let plot = 436.0;
    let width = left + plot + right;
    let lanes = 3.0;
    let height = top + 10.0 * lanes + 30.0;
    let base = top + 10.0 * lanes + 2.0;
    let (first, last) = match (points.first(), points.last()) {
        (Some(f), Some(l)) => (f.0 .0, l.0 .0),
        _ => (0, 0),
    };
    let (from, to) = if last > first {
        (first, last)
    } else {
        (first - 1, first + 1)
    };
    let x = |d: i64| left + plot * (d - from) as f64 / (to - from) as f64;
    let mut out = String::new();
    open(&mut out, label, width, height);
    let _ = write!(
        out,
        r#"<line class="axis" x1="{left}" x2="{0:.1}" y1="{base:.1}" y2="{base:.1}"/><text class="tick" x="{left}" y="{1:.1}">{2}</text><text class="tick" x="{0:.1}" y="{1:.1}" text-anchor="end">{3}</text>"#,
        left + plot,
        base + 14.0,
        Day(from),
        Day(to),
    );
    let mut same_day = 0usize;
    let mut prev = None;
    for (day, kind, what) in points {
        same_day = if prev == Some(*day) { same_day + 1 } else { 0 };
        prev = Some(*day);
        let cy = base - 6.0 - 10.0 * (same_day % lanes as usize) as f64;
        let _ = write!(
            out,
            r#"<circle class="k-{}" cx="{:.1}" cy="{cy:.1}" r="4"><title>{day}: {} — {}</title></circle>"#,
            kind.as_str(),
            x(day.0),
            kind_word(*kind),
            esc(what)
        );
    }
    let _ = write!(
        out,
        r#"<text class="axis-label" x="{:.1}" y="{:.1}" text-anchor="middle">date</text></svg>"#,
        left + plot / 2.0,
        base + 26.0
    );
    out
}

/// `text` cut to `max` characters with an ellipsis.
pub fn short(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
    s.push('…');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_one_two_or_five() {
        assert_eq!(nice_step(10.0, 5.0), 2.0);
        assert_eq!(nice_step(7.0, 4.0), 2.0);
        assert_eq!(nice_step(250.0, 5.0), 50.0);
        assert_eq!(nice_step(0.0, 5.0), 1.0);
        assert_eq!(nice_step(1.0, 5.0), 1.0);
    }

    /// Facts proven on one day only: the axis is the week ending on that day, no later day.
    #[test]
    fn a_single_day_of_facts_draws_no_day_after_it() {
        let label = Label {
            id: "f",
            title: "facts",
            desc: "facts",
        };
        let day = Day::parse("2026-11-26").unwrap();
        let svg = facts(
            &label,
            &[FactDay {
                day,
                new: 5,
                total: 5,
            }],
            0,
        );
        assert!(
            svg.contains(">2026-11-26<") && svg.contains(">2026-11-20<"),
            "{svg}"
        );
        assert!(!svg.contains(">2026-11-27<"), "{svg}");
    }

    #[test]
    fn chart_text_is_escaped() {
        let label = Label {
            id: "c",
            title: "a<b",
            desc: "\"x\" & y",
        };
        let svg = hbar(
            &label,
            &[("<script>".into(), 3, "s-open".into())],
            "problems",
        );
        assert!(!svg.contains("<script>"), "{svg}");
        assert!(
            svg.contains("&lt;script&gt;")
                && svg.contains("a&lt;b")
                && svg.contains("&quot;x&quot; &amp; y")
        );
    }
}
