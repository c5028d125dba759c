//! `mk report`'s page: the [`Report`] model as one self-contained HTML file.
//!
//! The page needs no network and no server (a Content-Security-Policy forbids fetching
//! anything), reads without JavaScript, and follows the reader's light or dark preference.
//! A little inline script makes tables sortable and the problems table filterable; without it
//! every row is there in the order the model gives. Everything that comes from a file or a
//! database is HTML-escaped ([`esc`]). This module formats; the numbers are the model's.

mod svg;

use std::fmt::Write as _;

use crate::kb::report::{
    AttemptKind, DateBasis, ProblemRow, ProblemSection, Report, TechniqueRate,
};
use crate::kb::ContextItem;

/// Characters of a problem's statement shown; the rest is one `mk find` away.
const STATEMENT_CHARS: usize = 1200;
/// Characters of a fact's statement or a failure's reason shown (`mk context` shows them whole).
const ITEM_CHARS: usize = 80;
/// Facts shown per section (the model holds as many as the other lists; `mk context` lists
/// them all): on a campaign of a thousand problems, most are the lemmas of one proof.
const FACTS_SHOWN: usize = 2;
/// Similar problems shown per section (`mk context ID` lists more).
const SIMILAR_SHOWN: usize = 1;
/// Problems linked per reason in "Needs attention" before the rest's closed list.
const ATTENTION_SHOWN: usize = 12;
/// Aliases named per section (the `mk query` shown lists them all).
const ALIASES_SHOWN: usize = 4;
/// Techniques per domain in the chart (the table lists them all).
const CHART_TECHNIQUES: usize = 12;

/// `text` with `&`, `<`, `>`, `"` and `'` escaped: safe in element content and in quoted
/// attribute values.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters other than tab and newline are not allowed in HTML text.
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// The element id of a problem's section: `p-` and the id, with every byte outside
/// `[A-Za-z0-9_-]` written as `.` and two hex digits (so different ids never collide).
pub fn anchor(problem: &str) -> String {
    let mut out = String::from("p-");
    for b in problem.bytes() {
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'-' {
            out.push(b as char);
        } else {
            let _ = write!(out, ".{b:02x}");
        }
    }
    out
}

/// The page for `report`, generated at `generated` (shown as is).
pub fn render(report: &Report, generated: &str) -> String {
    let mut page = Page {
        r: report,
        out: String::with_capacity(1 << 20),
        charts: 0,
        root: common_dir(report.sections.iter().flat_map(|s| {
            s.attempts
                .iter()
                .map(|a| a.file.as_str())
                .chain(s.statement_source.as_deref())
        })),
    };
    page.head();
    page.header(generated);
    page.out.push_str("<main>");
    page.overview();
    page.attention();
    page.problems_table();
    page.activity();
    page.no_problem();
    page.techniques();
    page.failures();
    page.sections();
    page.out.push_str("</main>");
    page.out.push_str(SCRIPT);
    page.out.push_str("</body></html>\n");
    page.out
}

struct Page<'a> {
    r: &'a Report,
    out: String,
    /// Charts written so far (their ids are `chart-N`).
    charts: usize,
    /// The directory every file shown is in; files are shown relative to it.
    root: String,
}

impl Page<'_> {
    fn w(&mut self, s: &str) {
        self.out.push_str(s);
    }

    /// `path` relative to the files' common directory.
    fn display_path<'p>(&self, path: &'p str) -> &'p str {
        path.strip_prefix(self.root.as_str()).unwrap_or(path)
    }

    fn next_chart(&mut self) -> String {
        self.charts += 1;
        format!("chart-{}", self.charts)
    }

    fn scope(&self) -> String {
        let mut parts = Vec::new();
        match &self.r.problem {
            Some(p) => parts.push(format!("problem {p}")),
            None => parts.push("all problems".to_string()),
        }
        if let Some(s) = self.r.since {
            parts.push(format!("activity since {s}"));
        }
        parts.join(", ")
    }

    fn head(&mut self) {
        let title = format!("math-forge report: {}", self.scope());
        let _ = write!(
            self.out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\
             <meta name=\"color-scheme\" content=\"light dark\">\
             <meta name=\"generator\" content=\"math-forge mk report\">\
             <title>{}</title><style>{STYLE}</style></head><body>",
            esc(&title)
        );
    }

    fn header(&mut self, generated: &str) {
        let r = self.r;
        let _ = write!(
            self.out,
            "<header><h1>math-forge report</h1><p class=\"meta\">{} · generated {} · knowledge.db <code>{}</code>",
            esc(&self.scope()),
            esc(generated),
            esc(&r.knowledge_db)
        );
        if r.tracking.available {
            let _ = write!(
                self.out,
                " · tracking.db <code>{}</code>",
                esc(&r.tracking.path)
            );
        } else {
            self.w(" · no tracking.db");
        }
        if !self.root.is_empty() {
            let _ = write!(self.out, " · files below <code>{}</code>", esc(&self.root));
        }
        self.w("</p>");
        if !r.tracking.notes.is_empty() {
            self.w("<ul class=\"notes\">");
            for n in &r.tracking.notes {
                let _ = write!(self.out, "<li>{}</li>", esc(n));
            }
            self.w("</ul>");
        }
        self.w(LEGEND);
        self.w(
            "<nav aria-label=\"Sections\"><a href=\"#overview\">Summary</a><a href=\"#attention\">Needs attention</a><a href=\"#problems\">Problems</a><a href=\"#activity\">Activity</a>",
        );
        if r.problem.is_none() {
            self.w("<a href=\"#no-problem\">Files without a problem</a>");
        }
        self.w(
            "<a href=\"#techniques\">Techniques</a><a href=\"#failures\">Failures</a>\
             <a href=\"#details\">Problem sections</a></nav></header>",
        );
    }

    fn overview(&mut self) {
        let r = self.r;
        let attempts: i64 =
            r.weeks.iter().map(|w| w.counts.total()).sum::<i64>() + r.attempts_before_weeks;
        let facts = r.facts.last().map_or(r.facts_before, |f| f.total);
        self.w("<section id=\"overview\"><h2>Summary</h2><dl class=\"cards\">");
        for (label, value, id) in [
            ("problems", r.problems.len() as i64, "n-problems"),
            ("attempt files", attempts, "n-attempts"),
            ("facts proven", facts, "n-facts"),
            ("facts", r.stats.facts, "n-all-facts"),
            ("occurrences", r.stats.occurrences, "n-occurrences"),
            ("result files", r.stats.freshness.files, "n-sources"),
            (
                "files without a problem",
                r.no_problem_files(),
                "n-no-problem",
            ),
        ] {
            if id == "n-no-problem" && r.problem.is_some() {
                continue;
            }
            let _ = write!(
                self.out,
                "<div><dt>{label}</dt><dd id=\"{id}\" data-v=\"{value}\">{value}</dd></div>"
            );
        }
        self.w("</dl><div class=\"figs\">");

        // Problems by our status and by literature status.
        let ours: Vec<(String, i64, String)> = r
            .our_status
            .iter()
            .map(|c| {
                let k = c.key.clone().unwrap_or_else(|| "none".into());
                let class = format!("s-{k}");
                (k, c.count, class)
            })
            .collect();
        self.bar_figure(
            "Problems by our status",
            "status",
            &ours,
            "status-ours",
            "What our attempts established: proven, partial, open, false or in flight.",
        );
        let lit: Vec<(String, i64, String)> = r
            .literature_status
            .iter()
            .map(|c| {
                let k = c.key.clone().unwrap_or_else(|| "unknown".into());
                (k, c.count, "lit".to_string())
            })
            .collect();
        self.bar_figure(
            "Problems by literature status",
            "literature status",
            &lit,
            "status-literature",
            "What the literature says of the problem, as a catalogue states it (an attribute such as @[category research open], or a catalogue's file); unknown where no file says. Kept apart from our status.",
        );
        self.w("</div></section>");
    }

    /// Attempts over time, facts over time and the sessions the hooks journaled.
    fn activity(&mut self) {
        let r = self.r;
        let facts = r.facts.last().map_or(r.facts_before, |f| f.total);
        self.w("<section id=\"activity\"><h2>Activity</h2>");

        // Attempts per week.
        let id = self.next_chart();
        let desc = {
            let mut totals = [0i64; 4];
            for w in &r.weeks {
                for (i, k) in AttemptKind::ALL.iter().enumerate() {
                    totals[i] += w.counts.get(*k);
                }
            }
            format!(
                "Stacked bars, one per week from {} to {}: {} proven, {} partial, {} budget reached and {} failed attempts in all.",
                r.weeks.first().map_or("-".into(), |w| w.start.to_string()),
                r.weeks.last().map_or("-".into(), |w| w.start.to_string()),
                totals[0], totals[1], totals[2], totals[3]
            )
        };
        let chart = svg::weeks(
            &svg::Label {
                id: &id,
                title: "Attempts per week by outcome",
                desc: &desc,
            },
            &r.weeks,
        );
        let _ = write!(
            self.out,
            "<figure id=\"fig-weeks\"><figcaption>Attempts per week by outcome</figcaption>{chart}"
        );
        let d = &r.dating;
        let _ = write!(
            self.out,
            "<p class=\"note\" id=\"dating\">An attempt is a file Aristotle returned. Dated by tracking.db's <code>completed_at</code> for its request uuid: <b data-v=\"{}\">{}</b>; else by the date the file states of itself: <b data-v=\"{}\">{}</b>; else by its modification time when it was read: <b data-v=\"{}\">{}</b>; else by the time it was extracted: <b data-v=\"{}\">{}</b>. \
             <i>Budget reached</i>: Aristotle's header says it stopped early (budget, time, crash).</p>",
            d.tracking,
            d.tracking,
            d.stated,
            d.stated,
            d.modified,
            d.modified,
            d.extracted,
            d.extracted
        );
        if r.attempts_before_weeks > 0 {
            let _ = write!(
                self.out,
                "<p class=\"note\">{} earlier attempts fall before the {} weeks shown.</p>",
                r.attempts_before_weeks,
                r.weeks.len()
            );
        }
        self.w("<details><summary>Data table</summary><table class=\"data\" id=\"weeks-table\"><thead><tr><th>week</th>");
        for k in AttemptKind::ALL {
            let _ = write!(self.out, "<th>{}</th>", svg::kind_word(k));
        }
        self.w("<th>total</th></tr></thead><tbody>");
        for w in r.weeks.iter().filter(|w| w.counts.total() > 0) {
            let _ = write!(self.out, "<tr><td>{}</td>", w.start);
            for k in AttemptKind::ALL {
                let _ = write!(
                    self.out,
                    "<td class=\"n\" data-k=\"{}\">{}</td>",
                    k.as_str(),
                    w.counts.get(k)
                );
            }
            let _ = write!(
                self.out,
                "<td class=\"n\" data-k=\"total\">{}</td></tr>",
                w.counts.total()
            );
        }
        self.w("</tbody></table></details></figure>");

        // Facts proven over time.
        let id = self.next_chart();
        let desc = format!(
            "A step line of the number of verified facts (theorems) by the day a file first proved each: {} in all{}.",
            facts,
            r.facts
                .first()
                .map(|f| format!(", from {} to {}", f.day, r.facts.last().map_or(f.day, |l| l.day)))
                .unwrap_or_default()
        );
        let chart = svg::facts(
            &svg::Label {
                id: &id,
                title: "Facts proven over time",
                desc: &desc,
            },
            &r.facts,
            r.facts_before,
        );
        let _ = write!(
            self.out,
            "<figure id=\"fig-facts\"><figcaption>Facts proven over time</figcaption>{chart}\
             <details><summary>Data table</summary><table class=\"data\" id=\"facts-table\"><thead><tr><th>day</th><th>new</th><th>total</th></tr></thead><tbody>"
        );
        for f in &r.facts {
            let _ = write!(
                self.out,
                "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                f.day, f.new, f.total
            );
        }
        self.w("</tbody></table></details></figure>");

        // Sessions.
        self.w("<h3 id=\"sessions\">Latest sessions captured by the hooks</h3>");
        if r.sessions.is_empty() {
            self.w("<p class=\"note\">No session journaled yet: the plugin's hooks record the edits of Claude Code sessions (<code>mf hook</code>).</p>");
        } else {
            self.w("<table class=\"data sortable\" id=\"sessions-table\"><thead><tr><th>session</th><th>problem</th><th>started</th><th>last event</th><th data-type=\"num\">events</th><th data-type=\"num\">holes opened</th><th data-type=\"num\">holes closed</th><th data-type=\"num\">gates fired</th><th data-type=\"num\">files</th><th data-type=\"num\">facts captured</th></tr></thead><tbody>");
            for s in &r.sessions {
                let problem = match &s.problem {
                    Some(p) => self.problem_link(p),
                    None => "—".to_string(),
                };
                let _ = write!(
                    self.out,
                    "<tr><td><code>{}</code></td><td>{problem}</td><td class=\"t\">{}</td><td class=\"t\">{}</td><td class=\"n\" data-k=\"events\">{}</td><td class=\"n\" data-k=\"holes_opened\">{}</td><td class=\"n\" data-k=\"holes_closed\">{}</td><td class=\"n\" data-k=\"gates_fired\">{}</td><td class=\"n\" data-k=\"files\">{}</td><td class=\"n\" data-k=\"captured\">{}</td></tr>",
                    esc(&svg::short(&s.id, 40)),
                    esc(&s.first),
                    esc(&s.last),
                    s.events,
                    s.holes_opened,
                    s.holes_closed,
                    s.gates_fired,
                    s.files,
                    s.captured
                );
            }
            self.w("</tbody></table>");
        }
        self.w("</section>");
    }

    fn bar_figure(
        &mut self,
        caption: &str,
        column: &str,
        items: &[(String, i64, String)],
        id_prefix: &str,
        desc: &str,
    ) {
        let id = self.next_chart();
        let words: Vec<String> = items.iter().map(|(k, n, _)| format!("{k} {n}")).collect();
        let desc = format!(
            "{desc} Bars: {}.",
            if words.is_empty() {
                "none".to_string()
            } else {
                words.join(", ")
            }
        );
        let chart = svg::hbar(
            &svg::Label {
                id: &id,
                title: caption,
                desc: &desc,
            },
            items,
            "problems",
        );
        let _ = write!(
            self.out,
            "<figure id=\"fig-{id_prefix}\"><figcaption>{}</figcaption>{chart}<details><summary>Data table</summary><table class=\"data\" id=\"{id_prefix}-table\"><thead><tr><th>{}</th><th>problems</th></tr></thead><tbody>",
            esc(caption),
            esc(column)
        );
        for (k, n, _) in items {
            let _ = write!(
                self.out,
                "<tr data-key=\"{}\"><td>{}</td><td class=\"n\">{n}</td></tr>",
                esc(k),
                esc(k)
            );
        }
        self.w("</tbody></table></details></figure>");
    }

    /// A link to the problem's section when the page has one, else its id.
    fn problem_link(&self, id: &str) -> String {
        if self.r.sections.iter().any(|s| s.id == id) {
            format!("<a href=\"#{}\">{}</a>", anchor(id), esc(id))
        } else {
            esc(id)
        }
    }

    /// The problems needing attention, by reason: the first [`ATTENTION_SHOWN`] of each as
    /// links to their sections, then how many more and the query that lists them all.
    fn attention(&mut self) {
        let r = self.r;
        self.w("<section id=\"attention\"><h2>Needs attention</h2>");
        if r.attention.is_empty() {
            self.w("<p class=\"note\">No problem needs attention: no unchecked complete proof, no statement proven under another id, no status resting on a sketch name, no file with syntax errors.</p></section>");
            return;
        }
        self.w("<ul class=\"attention\">");
        for a in &r.attention {
            let _ = write!(
                self.out,
                "<li data-reason=\"{}\"><b data-v=\"{}\">{}</b>: {}. ",
                a.reason,
                a.problems.len(),
                count(a.problems.len(), "problem"),
                esc(a.what)
            );
            let links: Vec<String> = a
                .problems
                .iter()
                .take(ATTENTION_SHOWN)
                .map(|id| self.problem_link(id))
                .collect();
            self.w(&links.join(", "));
            let more = a.problems.len() - links.len();
            match &a.query {
                // The query decided the list: it lists every such problem of the knowledge base.
                Some(sql) => {
                    if more > 0 {
                        let _ = write!(self.out, "; {more} more (the table's rows)");
                    }
                    let _ = write!(
                        self.out,
                        ". Listed by <code class=\"cmd\">{}</code>",
                        esc(&format!("mk query {}", shell_quoted(sql)))
                    );
                }
                None if more > 0 => {
                    let rest: Vec<String> = a.problems[links.len()..]
                        .iter()
                        .map(|id| self.problem_link(id))
                        .collect();
                    let _ = write!(self.out, ", {}", rest.join(", "));
                }
                None => {}
            }
            self.w("</li>");
        }
        self.w("</ul></section>");
    }

    fn problems_table(&mut self) {
        let r = self.r;
        let _ = write!(
            self.out,
            "<section id=\"problems\"><h2>Problems</h2><p class=\"note\">{}{}. Our status comes from proofs: <i>proven</i> only by a complete, unconditional proof of the problem's own statement that a checker compiled, shown with that proof's confidence; a complete proof nobody checked leaves it <i>partial</i>. Attempts count Aristotle requests, each once with the best outcome of its returned files (copies of one output are one attempt). <i>Why</i>: the files about the problem by the evidence that decided it, strongest first (tracking.db; the file's own words; a known naming scheme; the users' naming; shared definitions; topic words, the last resort). Click a heading to sort.</p>",
            count(r.problems.len(), "problem"),
            if r.since.is_some() {
                ", those with activity in range (attempts counted in range)"
            } else {
                ""
            }
        );
        // Filters: shown by the script (they do nothing without it).
        let mut statuses: Vec<&str> = r
            .problems
            .iter()
            .filter_map(|p| p.status.as_deref())
            .collect();
        statuses.sort_unstable();
        statuses.dedup();
        let mut domains: Vec<&str> = r
            .problems
            .iter()
            .map(|p| p.domain.as_deref().unwrap_or("unknown"))
            .collect();
        domains.sort_unstable();
        domains.dedup();
        let mut strongest: Vec<&str> = r.problems.iter().map(strongest_family).collect();
        strongest.sort_unstable();
        strongest.dedup();
        // Closed: a table of a thousand rows is laid out whole, and would hold the page's first
        // paint back by a third of a second; opened, it is all there (without a script too).
        let _ = write!(
            self.out,
            "<details id=\"problems-list\"><summary>The table of all {}: status, attempts, why their files are about them, best result</summary>",
            count(r.problems.len(), "problem")
        );
        self.w("<div class=\"filters\" data-for=\"problems-table\" hidden><label>Filter <input type=\"search\" placeholder=\"id, approach, file…\"></label>");
        self.w("<label>Status <select data-col=\"3\"><option value=\"\">any</option>");
        for s in statuses {
            let _ = write!(self.out, "<option>{}</option>", esc(s));
        }
        self.w(
            "</select></label><label>Domain <select data-col=\"1\"><option value=\"\">any</option>",
        );
        for d in domains {
            let _ = write!(self.out, "<option>{}</option>", esc(d));
        }
        self.w("</select></label><label>Strongest evidence <select data-col=\"9\"><option value=\"\">any</option>");
        for f in strongest {
            let _ = write!(self.out, "<option>{}</option>", esc(f));
        }
        self.w("</select></label><output></output></div>");
        self.w("<div class=\"scroll\"><table class=\"data sortable\" id=\"problems-table\"><caption>Problems, latest activity first</caption><thead><tr><th>problem</th><th>domain</th><th>literature</th><th>our status</th><th data-type=\"num\">proven</th><th data-type=\"num\">partial</th><th data-type=\"num\">budget reached</th><th data-type=\"num\">failed</th><th data-type=\"num\">attempts</th><th>why: files by evidence</th><th>last activity</th><th>best result</th></tr></thead><tbody>");
        for p in &r.problems {
            self.problem_row(p);
        }
        self.w("</tbody></table></div></details></section>");
    }

    fn problem_row(&mut self, p: &ProblemRow) {
        let domain = p.domain.as_deref().unwrap_or("unknown");
        // A cell ends where the next begins (HTML's own rule, so no `</td>`): on a campaign of
        // a thousand problems the end tags would be a tenth of the table.
        let mut row = String::with_capacity(512);
        let _ = write!(
            row,
            "<tr><td><a href=\"#{}\">{}</a>",
            anchor(&p.id),
            esc(&p.id)
        );
        if sketch_only(p) {
            row.push_str(" <small class=\"weak\">sketch name only</small>");
        }
        for o in &p.same_statement {
            let _ = write!(
                row,
                " <small>same statement as {}</small>",
                self.problem_link(&o.id)
            );
        }
        // The variants' names are in the problem's section; the table says how many.
        if !p.variants.is_empty() {
            let _ = write!(
                row,
                " <small>({})</small>",
                count(p.variants.len(), "variant")
            );
        }
        let _ = write!(
            row,
            "<td>{}<td>{}<td>{}",
            esc(domain),
            esc(p.literature_status.as_deref().unwrap_or("—")),
            status_badge(p)
        );
        // The counts' columns are the header's (the style aligns them): 1,600 rows would
        // otherwise repeat a class and a key in each.
        for k in AttemptKind::ALL {
            let _ = write!(row, "<td>{}", p.attempts.get(k));
        }
        let _ = write!(
            row,
            "<td>{}<td data-v=\"{}\">{}",
            p.attempts.total(),
            p.files,
            why_summary(p),
        );
        match p.last_activity.as_deref() {
            Some(t) => {
                let _ = write!(
                    row,
                    "<td data-v=\"{}\">{}",
                    esc(t),
                    esc(t.get(..10).unwrap_or(t))
                );
            }
            None => row.push_str("<td>—"),
        }
        let _ = write!(row, "<td>{}</tr>", best_result(p));
        self.out.push_str(&row);
    }

    fn techniques(&mut self) {
        let r = self.r;
        self.w("<section id=\"techniques\"><h2>Techniques</h2><p class=\"note\">Success of each technique per domain, from the evidence <code>mk recommend DOMAIN</code> ranks by: an attempt that proved counts as a success, a partial one as half a success and half a failure, a failed one as a failure; recorded strategies and verified proofs of other files count too. The interval is the 95% Wilson score interval: one success out of one is a wide bar, forty out of sixty a narrow one. Over all time.</p>");
        let mut domains: Vec<&str> = r.techniques.iter().map(|t| t.domain.as_str()).collect();
        domains.dedup();
        self.w("<div class=\"figs\">");
        for domain in &domains {
            let mut rates: Vec<&TechniqueRate> = r
                .techniques
                .iter()
                .filter(|t| t.domain == *domain)
                .collect();
            // The chart shows the best-supported techniques, in the model's order.
            let mut by_samples = rates.clone();
            by_samples.sort_by(|a, b| b.samples.total_cmp(&a.samples));
            by_samples.truncate(CHART_TECHNIQUES);
            rates.retain(|t| by_samples.iter().any(|b| std::ptr::eq(*b, *t)));
            let id = self.next_chart();
            let desc = format!(
                "Success rate with its 95% Wilson interval for the {} techniques of domain {domain} with the most evidence: {}.",
                rates.len(),
                rates
                    .iter()
                    .map(|t| format!(
                        "{} {:.0}% of {} ({:.0}–{:.0}%)",
                        t.technique,
                        t.rate * 100.0,
                        num(t.samples),
                        t.low * 100.0,
                        t.high * 100.0
                    ))
                    .collect::<Vec<_>>()
                    .join("; ")
            );
            let title = format!("Technique success in {domain}");
            let chart = svg::forest(
                &svg::Label {
                    id: &id,
                    title: &title,
                    desc: &desc,
                },
                &rates,
            );
            let _ = write!(
                self.out,
                "<figure class=\"wide\" id=\"fig-tech-{}\"><figcaption>{}</figcaption>{chart}</figure>",
                esc(domain),
                esc(&title)
            );
        }
        self.w("</div>");
        if r.techniques.is_empty() {
            self.w("<p class=\"note\">No technique has evidence yet.</p>");
        }
        self.w("<div class=\"scroll\"><table class=\"data sortable\" id=\"techniques-table\"><thead><tr><th>domain</th><th>technique</th><th data-type=\"num\">successes</th><th data-type=\"num\">failures</th><th data-type=\"num\">n</th><th data-type=\"num\">rate</th><th data-type=\"num\">95% interval</th><th data-type=\"num\">mk recommend estimate</th></tr></thead><tbody>");
        for t in &r.techniques {
            let _ = write!(
                self.out,
                "<tr data-domain=\"{}\" data-technique=\"{}\"><td>{}</td><td>{}</td><td class=\"n\" data-k=\"successes\">{}</td><td class=\"n\" data-k=\"failures\">{}</td><td class=\"n\" data-k=\"n\">{}</td><td class=\"n\" data-v=\"{:.4}\">{:.0}%</td><td class=\"n\" data-v=\"{:.4}\">{:.0}–{:.0}%</td><td class=\"n\" data-v=\"{:.4}\">{:.0}%</td></tr>",
                esc(&t.domain),
                esc(&t.technique),
                esc(&t.domain),
                esc(&t.technique),
                num(t.successes),
                num(t.failures),
                num(t.samples),
                t.rate,
                t.rate * 100.0,
                t.low,
                t.low * 100.0,
                t.high * 100.0,
                t.estimate,
                t.estimate * 100.0
            );
        }
        self.w("</tbody></table></div></section>");
    }

    fn failures(&mut self) {
        let r = self.r;
        self.w("<section id=\"failures\"><h2>Failures</h2><p class=\"note\">Approaches that failed on some problem (never worked there), most failed attempts first, with the problems where they failed, half-worked or worked (as <code>mk strategies</code> counts them) and what proved those problems on or after the first failure. Over all time.</p>");
        if r.failures.is_empty() {
            self.w("<p class=\"note\">No failed approach recorded.</p>");
        } else {
            self.w("<div class=\"scroll\"><table class=\"data sortable\" id=\"failures-table\"><thead><tr><th>approach</th><th data-type=\"num\">failed attempts</th><th data-type=\"num\">problems failed</th><th data-type=\"num\">partial</th><th data-type=\"num\">proven</th><th>later worked instead (problems)</th></tr></thead><tbody>");
            for f in &r.failures {
                let replaced = if f.replaced_by.is_empty() {
                    "—".to_string()
                } else {
                    f.replaced_by
                        .iter()
                        .map(|x| format!("{} ({})", esc(&x.approach), x.problems))
                        .collect::<Vec<_>>()
                        .join("; ")
                };
                let _ = write!(
                    self.out,
                    "<tr data-approach=\"{}\"><td>{}</td><td class=\"n\" data-k=\"failed_attempts\">{}</td><td class=\"n\" data-k=\"failed\">{}</td><td class=\"n\" data-k=\"partial\">{}</td><td class=\"n\" data-k=\"proven\">{}</td><td>{replaced}</td></tr>",
                    esc(&f.approach),
                    esc(&f.approach),
                    f.failed_attempts,
                    f.failed_problems,
                    f.partial_problems,
                    f.proven_problems
                );
            }
            self.w("</tbody></table></div>");
        }
        if r.unknown_approach_failures > 0 {
            let _ = write!(
                self.out,
                "<p class=\"note\">{} failed attempts whose approach could not be read are not listed.</p>",
                r.unknown_approach_failures
            );
        }
        self.w("</section>");
    }

    fn sections(&mut self) {
        let r = self.r;
        let shown = r
            .sections
            .iter()
            .map(|s| {
                s.facts
                    .len()
                    .max(s.failed_approaches.len())
                    .max(s.false_lemmas.len())
            })
            .max()
            .unwrap_or(0);
        // What every section would repeat is said here once.
        let _ = write!(
            self.out,
            "<section id=\"details\"><h2>Problem sections</h2><p class=\"note\">{}, in the order of the table. \
             Lists show the first entries, best first, as <code>mk context</code> ranks them ({FACTS_SHOWN} facts; {shown} failed approaches and false lemmas); under a list cut short, a line says how many more there are and the <code>mk</code> command that lists them all. \
             A section names a file once: an entry from the file that states the problem names no file, and a file all other entries of a list come from is named in its heading. \
             <i>Most similar</i>: the problem whose proofs share the most constants with this problem's, with its status and the number shared; <code>mk context ID</code> lists more, and problems of the same domain (the table's domain filter shows them all). \
             A section without an attempts table has no attempt in range.</p>",
            count(r.sections.len(), "problem"),
        );
        for (s, p) in r.sections.iter().zip(&r.problems) {
            self.section(s, p);
        }
        self.w("</section>");
    }

    fn section(&mut self, s: &ProblemSection, p: &ProblemRow) {
        let _ = write!(
            self.out,
            "<section class=\"problem\" id=\"{}\"><h3>{}</h3><p class=\"meta\">{} · {}",
            anchor(&s.id),
            esc(&s.id),
            esc(p.domain.as_deref().unwrap_or("unknown")),
            // `mk find`'s words: the literature's status apart from ours, with its confidence.
            esc(&p.standing),
        );
        if let (Some(_), Some(src)) = (&p.literature_status, &p.literature_source) {
            let _ = write!(
                self.out,
                " (literature: as <code>{}</code> states)",
                esc(self.display_path(src))
            );
        }
        if let Some(rec) = &p.recorded_status {
            let _ = write!(self.out, " · recorded status {}", esc(rec));
        }
        if p.name != p.id {
            let _ = write!(self.out, " · name {}", esc(&p.name));
        }
        if !p.variants.is_empty() {
            let _ = write!(self.out, " · variants {}", esc(&p.variants.join(", ")));
        }
        self.w("</p>");
        // Its links to the same mathematics under other ids, as `mk find` shows them.
        for o in &p.same_statement {
            let _ = write!(
                self.out,
                "<p class=\"same\" data-same=\"{}\">Same statement as: {} ({}) — <code>{}</code>, theorem <code>{}</code></p>",
                esc(&o.id),
                self.problem_link(&o.id),
                esc(o.status.as_deref().unwrap_or("open")),
                esc(self.display_path(&o.statement_source)),
                esc(&o.statement_theorem)
            );
        }
        if !p.aliases.is_empty() {
            let shown = &p.aliases[..p.aliases.len().min(ALIASES_SHOWN)];
            let _ = write!(
                self.out,
                "<p class=\"aliases\" data-aliases=\"{}\">Also named: {}",
                p.aliases.len(),
                shown
                    .iter()
                    .map(|a| format!("<code>{}</code>", esc(a)))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            if p.aliases.len() > shown.len() {
                let sql = format!(
                    "SELECT alias FROM problem_aliases WHERE problem_id = '{}'",
                    p.id.replace('\'', "''")
                );
                let _ = write!(
                    self.out,
                    "; {} more: <code>{}</code>",
                    p.aliases.len() - shown.len(),
                    esc(&format!("mk query {}", shell_quoted(&sql)))
                );
            }
            self.w("</p>");
        }
        // The proof our status rests on; said with the statement when it is the same file.
        let proof_in_statement_file = s.statement.is_some()
            && p.proof_source.is_some()
            && p.proof_source == s.statement_source;
        let confidence = esc(p.confidence.as_deref().unwrap_or("confidence not recorded"));
        if let Some(src) = p
            .proof_source
            .as_deref()
            .filter(|_| !proof_in_statement_file)
        {
            let _ = write!(
                self.out,
                "<p class=\"source proof\">Our status rests on the proof in <code>{}</code> ({confidence}).</p>",
                esc(self.display_path(src)),
            );
        }
        self.evidence_list(p);
        match &s.statement {
            Some(text) => {
                let shown = svg::short(text, STATEMENT_CHARS);
                let _ = write!(self.out, "<pre class=\"statement\">{}</pre>", esc(&shown));
                match &s.statement_source {
                    Some(src) => {
                        // The theorem, unless the file is named after it (`Foo.bar.lean`).
                        let theorem = s
                            .statement_theorem
                            .as_deref()
                            .filter(|t| file_name(src).strip_suffix(".lean") != Some(*t))
                            .map(|t| format!(", theorem <code>{}</code>", esc(t)))
                            .unwrap_or_default();
                        let (class, proof) = if proof_in_statement_file {
                            (
                                "source proof",
                                "; our status rests on its proof".to_string(),
                            )
                        } else {
                            ("source", String::new())
                        };
                        let _ = write!(
                            self.out,
                            "<p class=\"{class}\">Stated in <code>{}</code>{theorem}{proof}.</p>",
                            esc(self.display_path(src))
                        );
                    }
                    None => self.w("<p class=\"source\">Source of the statement not recorded.</p>"),
                }
            }
            None => self.w(
                "<p class=\"note\">No statement recorded (no input file for it was extracted).</p>",
            ),
        }

        // Attempts on a time line (from two on: one attempt is one row of the table). None in
        // range: no table (the sections' note says so once).
        if !s.attempts.is_empty() {
            let chart = if s.attempts.len() > 1 {
                self.timeline(s)
            } else {
                String::new()
            };
            let basis = |b: DateBasis| match b {
                DateBasis::Tracking => "completed, by tracking.db",
                DateBasis::Stated => "as the file states",
                DateBasis::Modified => "file modified",
                DateBasis::Extracted => "extracted",
            };
            let first = s.attempts[0].dated_by;
            let uniform = s.attempts.iter().all(|a| a.dated_by == first);
            let _ = write!(
                self.out,
                "<h4>Attempts <small>({} of {}; dated {})</small></h4>{chart}<div class=\"scroll\"><table class=\"data attempts\"><thead><tr><th>date</th><th>outcome</th><th>approach</th><th>file</th><th>why this problem</th><th>holes</th><th>syntax errors</th></tr></thead><tbody>",
                count(s.attempts.len(), "file"),
                count(p.attempts.total() as usize, "request"),
                if uniform { basis(first) } else { "as each row says" }
            );
            for a in &s.attempts {
                let mark = if uniform {
                    String::new()
                } else {
                    format!(" <small>{}</small>", basis(a.dated_by))
                };
                let _ = write!(
                    self.out,
                    "<tr data-k=\"{}\"><td>{}{mark}</td><td><span class=\"badge k-{}\">{}</span></td><td>{}</td><td><code>{}</code></td><td data-evidence=\"{ev}\">{ev}</td><td class=\"n\">{}</td><td class=\"n\" data-k=\"parse_errors\">{}</td></tr>",
                    a.kind.as_str(),
                    esc(&a.at),
                    a.kind.as_str(),
                    svg::kind_word(a.kind),
                    esc(&a.approach),
                    esc(self.display_path(&a.file)),
                    a.holes,
                    a.parse_errors,
                    ev = esc(a.evidence.as_deref().unwrap_or("unrecorded")),
                );
            }
            self.w("</tbody></table></div>");
        }

        let stated = s.statement_source.as_deref();
        let list = |items, shown, total| List {
            items,
            shown,
            total,
            problem: &s.id,
            statement: s.statement.as_deref(),
            stated,
            proof: p.proof_source.as_deref(),
        };
        self.items(
            "Facts",
            "facts",
            &list(&s.facts, FACTS_SHOWN, s.facts_total),
        );
        let all = usize::MAX;
        self.items(
            "Failed approaches",
            "failed",
            &list(&s.failed_approaches, all, s.failed_total),
        );
        self.items(
            "False lemmas",
            "false",
            &list(&s.false_lemmas, all, s.false_total),
        );

        // Similar problems that share constants with it; those of the same domain only are
        // the table's rows of that domain (the sections' note says so once).
        let similar: Vec<_> = s
            .similar
            .iter()
            .filter(|q| q.shared_constants > 0)
            .take(SIMILAR_SHOWN)
            .collect();
        if !similar.is_empty() {
            self.w("<p class=\"similar\">Most similar: ");
            for (i, q) in similar.into_iter().enumerate() {
                let _ = write!(
                    self.out,
                    "{}{} ({}; {})",
                    if i > 0 { ", " } else { "" },
                    self.problem_link(&q.id),
                    esc(q.status.as_deref().unwrap_or("no status")),
                    count(q.shared_constants as usize, "constant")
                );
            }
            self.w("</p>");
        }
        self.w("</section>");
    }

    /// Why the tool believes these files are about the problem: its files by the evidence
    /// that decided their problem, strongest first, on one line.
    fn evidence_list(&mut self, p: &ProblemRow) {
        self.w("<p class=\"evidence\">");
        match p.evidence.as_slice() {
            [] => self.w("Why: no file is about it; it was recorded by hand or by tracking.db"),
            [e] => {
                let _ = write!(
                    self.out,
                    "Why: <span data-evidence=\"{}\">{} by {}</span>",
                    esc(&e.evidence),
                    count(e.files as usize, "file"),
                    esc(evidence_words(&e.evidence))
                );
            }
            all => {
                let _ = write!(
                    self.out,
                    "Why these <span data-files=\"{}\">{}</span>: ",
                    p.files,
                    count(p.files as usize, "file")
                );
                for (i, e) in all.iter().enumerate() {
                    let _ = write!(
                        self.out,
                        "{}<span data-evidence=\"{}\" data-files=\"{2}\">{2} by {3}</span>",
                        if i > 0 { "; " } else { "" },
                        esc(&e.evidence),
                        e.files,
                        esc(evidence_words(&e.evidence))
                    );
                }
            }
        }
        self.w("</p>");
        if sketch_only(p) {
            self.w("<p class=\"note weak\" data-weak=\"topic\">Named by its sketch only: no file says which problem it is; its id is topic words of a sketch name, the weakest evidence.</p>");
        }
        if p.parse_failures > 0 {
            let _ = write!(
                self.out,
                "<p class=\"note broken\" data-parse-failures=\"{}\">{} with syntax errors: what could not be parsed counts as neither proven nor clean.</p>",
                p.parse_failures,
                count(p.parse_failures as usize, "file")
            );
        }
    }

    /// Files about no problem, by reason: kept apart from the problems, never counted as one.
    /// Steps of a campaign (files that belong to one but to no single problem of it) are told
    /// apart from files about no problem at all.
    fn no_problem(&mut self) {
        let r = self.r;
        if r.problem.is_some() {
            return;
        }
        let total = r.no_problem_files();
        let steps: i64 = r
            .no_problem
            .iter()
            .filter(|n| n.reason == "step")
            .map(|n| n.files)
            .sum();
        let _ = write!(
            self.out,
            "<section id=\"no-problem\"><h2>Files without a problem</h2><p class=\"note\"><b data-v=\"{total}\">{}</b> about no problem: <b data-v=\"{steps}\">{}</b> steps of a campaign, which belong to it but to none of its problems, and <b data-v=\"{}\">{}</b> about no problem at all. No evidence names a problem of theirs, so they count in no problem's files, attempts or status; the facts they state are facts without a problem (<code>mk search</code> finds them).</p>",
            count(total as usize, "file"),
            count(steps as usize, "file"),
            total - steps,
            total - steps,
        );
        if r.no_problem.is_empty() {
            self.w("<p class=\"note\">Every file is about a problem.</p></section>");
            return;
        }
        self.w("<div class=\"scroll\"><table class=\"data\" id=\"no-problem-table\"><thead><tr><th>reason</th><th>what it means</th><th>files</th><th>fact occurrences</th><th>with syntax errors</th><th>the command that lists them</th></tr></thead><tbody>");
        for n in &r.no_problem {
            let words = match no_problem_words(&n.reason) {
                Some(w) => esc(w),
                None => format!(
                    "stored reason <code>{}</code> (this version has no words for it)",
                    esc(&n.reason)
                ),
            };
            let _ = write!(
                self.out,
                "<tr data-reason=\"{}\"><td>{}</td><td>{words}</td><td class=\"n\" data-k=\"files\">{}</td><td class=\"n\" data-k=\"facts\">{}</td><td class=\"n\" data-k=\"parse_failures\">{}</td><td>",
                esc(&n.reason),
                if n.reason == "step" {
                    "<b>campaign step</b>".to_string()
                } else {
                    esc(&n.reason)
                },
                n.files,
                n.facts,
                n.parse_failures,
            );
            // Counted, not listed: a library package alone is hundreds of modules.
            let sql = format!(
                "SELECT path FROM sources WHERE problem_id IS NULL AND coalesce(problem_evidence, 'none') = '{}'",
                n.reason.replace('\'', "''")
            );
            let _ = write!(
                self.out,
                "<code class=\"cmd\">{}</code></td></tr>",
                esc(&format!("mk query {}", shell_quoted(&sql)))
            );
        }
        self.w("</tbody></table></div><p class=\"note\">Every one of them: <code>mk query \"SELECT path, problem_evidence FROM sources WHERE problem_id IS NULL\"</code>.</p></section>");
    }

    /// A problem's attempts on a time line, as a figure.
    fn timeline(&mut self, s: &ProblemSection) -> String {
        let points: Vec<_> = s
            .attempts
            .iter()
            .map(|a| {
                let what = format!(
                    "{} ({}, {} holes)",
                    self.display_path(&a.file),
                    a.approach,
                    a.holes
                );
                (a.day, a.kind, what)
            })
            .collect();
        let (first, last) = (&s.attempts[0], &s.attempts[s.attempts.len() - 1]);
        let desc = format!(
            "{} attempts from {} to {}; the table below lists them.",
            s.attempts.len(),
            first.day,
            last.day
        );
        let title = format!("Attempts on {}", s.id);
        let id = self.next_chart();
        let chart = svg::timeline(
            &svg::Label {
                id: &id,
                title: &title,
                desc: &desc,
            },
            &points,
        );
        format!("<figure class=\"timeline\">{chart}</figure>")
    }

    /// A list of `mk context` items, at most as many as the model holds; a line under it says
    /// how many more there are and the command that lists them all.
    fn items(&mut self, title: &str, class: &str, list: &List<'_>) {
        let List {
            items,
            shown,
            total,
            problem,
            statement,
            stated,
            proof,
        } = *list;
        // A fact restating the problem's statement in the file our status rests on says what
        // the section's proof line says: it is left out (and counted as read).
        let mut read = 0;
        let mut kept: Vec<&ContextItem> = Vec::new();
        for i in items {
            if kept.len() == shown {
                break;
            }
            read += 1;
            if proof.is_some() && i.source.as_deref() == proof && restates(i, statement) {
                continue;
            }
            kept.push(i);
        }
        let more = total - read as i64;
        if kept.is_empty() && more <= 0 {
            return;
        }
        // One confidence for the whole list is said once, in its heading; so is one file that
        // every item not from the statement's file comes from (that one the section names).
        let first = kept.first().and_then(|i| i.confidence.as_deref());
        let uniform = kept.len() > 1 && kept.iter().all(|i| i.confidence.as_deref() == first);
        let mut heading = String::new();
        if let Some(c) = first.filter(|_| uniform) {
            let _ = write!(heading, ", all {}", esc(c));
        }
        let others: Vec<&str> = kept
            .iter()
            .filter_map(|i| i.source.as_deref())
            .filter(|s| Some(*s) != stated)
            .collect();
        let common = others
            .first()
            .copied()
            .filter(|f| others.len() > 1 && others.iter().all(|o| o == f));
        if let Some(f) = common {
            let _ = write!(heading, ", from <code>{}</code>", esc(self.display_path(f)));
        }
        let _ = write!(
            self.out,
            "<h4>{title} <small>({total}{heading})</small></h4>"
        );
        if !kept.is_empty() {
            let _ = write!(self.out, "<ul class=\"items {class}\">");
        }
        for i in &kept {
            let _ = write!(self.out, "<li data-finding=\"{}\">", i.id);
            if !uniform {
                let _ = write!(
                    self.out,
                    "<span class=\"badge c-{}\">{}</span> ",
                    esc(i.confidence.as_deref().unwrap_or("")),
                    esc(i.confidence.as_deref().unwrap_or("—")),
                );
            }
            self.out.push_str(&item_text(i, statement));
            if let Some(why) = &i.why {
                let _ = write!(
                    self.out,
                    " <span class=\"why\">{}</span>",
                    esc(&svg::short(why, ITEM_CHARS))
                );
            }
            if let Some(src) = i
                .source
                .as_deref()
                .filter(|s| Some(*s) != stated && Some(*s) != common)
            {
                let _ = write!(
                    self.out,
                    " <small>— {}</small>",
                    esc(self.display_path(src))
                );
            }
            self.w("</li>");
        }
        if !kept.is_empty() {
            self.w("</ul>");
        }
        if more > 0 {
            let _ = write!(
                self.out,
                "<p class=\"more\">{more} more: <code>mk context {} -n {total}</code></p>",
                esc(&shell_word(problem))
            );
        }
    }
}

/// A list of a problem's section, with what its items need not repeat.
struct List<'a> {
    /// The first items, best first, as `mk context` ranks them.
    items: &'a [ContextItem],
    /// Items shown at most.
    shown: usize,
    /// Findings of that kind the problem has (the list shows the first ones).
    total: i64,
    problem: &'a str,
    /// The problem's statement, shown above the lists.
    statement: Option<&'a str>,
    /// The file that states the problem (its section names it; items from it do not).
    stated: Option<&'a str>,
    /// The file holding the proof our status rests on.
    proof: Option<&'a str>,
}

/// Whether an item's statement is the problem's: the same text, or the same after the name it
/// declares (a copy of the theorem under another name).
fn restates(i: &ContextItem, problem_statement: Option<&str>) -> bool {
    let (Some(ps), Some(st)) = (problem_statement, i.statement.as_deref()) else {
        return false;
    };
    let body = |t: &str| {
        let name = t.split([' ', '\n', ':']).next().unwrap_or("");
        t[name.len()..].trim_start().to_string()
    };
    ps == st || (!body(st).is_empty() && body(ps) == body(st))
}

/// An item's name and statement, each once. A fact's title is its name and kind
/// (`Foo.bar_le (theorem)`) and its statement starts with the name as declared (`bar_le (n : ℕ)
/// …`): the full name and the rest of the statement say it all; a theorem's or lemma's kind
/// says nothing more. A statement that is the problem's own is not repeated.
fn item_text(i: &ContextItem, problem_statement: Option<&str>) -> String {
    let kind = i
        .title
        .rsplit_once(" (")
        .filter(|(_, k)| k.ends_with(')'))
        .map(|(_, k)| &k[..k.len() - 1]);
    let Some(st) = i.statement.as_deref() else {
        return esc(&i.title);
    };
    // The name the statement starts with, and whether the title's name ends with it.
    let declared = st.split([' ', '\n', ':']).next().unwrap_or("");
    let named = i.theorem_name.as_deref().filter(|n| {
        !declared.is_empty()
            && i.title.starts_with(n)
            && (*n == declared || n.ends_with(&format!(".{declared}")))
    });
    let Some(name) = named else {
        return format!(
            "{} <code>{}</code>",
            esc(&i.title),
            esc(&svg::short(st, ITEM_CHARS))
        );
    };
    let rest = i.title[name.len()..].trim();
    // What the title says beyond name and kind (a condition, …) stays.
    let extra = match kind {
        Some("theorem" | "lemma") if rest == format!("({})", kind.unwrap_or("")) => "",
        _ => rest,
    };
    let extra = if extra.is_empty() {
        String::new()
    } else {
        format!(" {}", esc(extra))
    };
    if restates(i, problem_statement) {
        return format!(
            "<code>{}</code>: <i>the statement above</i>{extra}",
            esc(name)
        );
    }
    format!(
        "<code>{}</code>{extra}",
        esc(&svg::short(
            &format!("{name}{}", &st[declared.len()..]),
            ITEM_CHARS
        ))
    )
}

/// `text` as one shell word in double quotes when nothing in it is special there, else
/// [`shell_word`]'s.
fn shell_quoted(text: &str) -> String {
    if text.contains(['"', '$', '`', '\\', '!']) {
        shell_word(text)
    } else {
        format!("\"{text}\"")
    }
}

/// `word` as one shell word: as is when it needs no quoting, else in single quotes.
fn shell_word(word: &str) -> String {
    if !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-.:/+=@,".contains(&b))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The family of a problem's strongest evidence (`no file` when no file is about it): how
/// its cell in the table starts, which the filter matches.
fn strongest_family(p: &ProblemRow) -> &'static str {
    p.evidence.first().map_or("no file", |e| e.family)
}

/// Whether a problem is named by its sketch only (no file says which problem it is).
fn sketch_only(p: &ProblemRow) -> bool {
    p.named_by_sketch_only
}

/// Our status as a badge, with the confidence of the proof it rests on (`proven (verified)`,
/// `partial (medium)`: a complete proof nobody checked).
fn status_badge(p: &ProblemRow) -> String {
    let status = p.status.as_deref().unwrap_or("");
    let mut out = format!(
        "<span class=\"badge s-{}\">{}</span>",
        esc(status),
        esc(if status.is_empty() { "—" } else { status })
    );
    if let Some(c) = &p.confidence {
        let _ = write!(out, " <small>{}</small>", esc(c));
    }
    out
}

/// The files of a problem by evidence family, strongest first: `own words 3 · naming 2`; the
/// exact kinds in the title.
fn why_summary(p: &ProblemRow) -> String {
    if p.evidence.is_empty() {
        return "no file".to_string();
    }
    let mut families: Vec<(&str, i64)> = Vec::new();
    for e in &p.evidence {
        match families.iter_mut().find(|(f, _)| *f == e.family) {
            Some((_, n)) => *n += e.files,
            None => families.push((e.family, e.files)),
        }
    }
    families
        .iter()
        .map(|(f, n)| {
            if *f == "topic" {
                format!("<i>{f} {n}</i>")
            } else {
                format!("{} {n}", esc(f))
            }
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// What a stored evidence name means, in words.
fn evidence_words(evidence: &str) -> &'static str {
    match evidence {
        "given" => "the command line (--problem-id)",
        "tracking" => "tracking.db (its request's submission)",
        "attribute" => "own words: a catalogue attribute",
        "theorem" => "own words: a declaration named after it",
        "comment" => "own words: the leading comment",
        "campaign" => "own words: the comment names this target",
        "file_name" => "scheme: the file name",
        "folder" => "scheme: a folder",
        "catalogue_entry" => "catalogue: an entry named by its file",
        "slot" => "naming: its slot siblings' names",
        "campaign_folder" => "naming: a folder names this target",
        "sketch" => "naming: the sketch name",
        "definitions" => "definitions: its own are this problem's files'",
        "lemmas" => "lemmas: it states those this problem's files state",
        "topic" => "topic words of its name only (last resort, weak)",
        "copy" => "copy of a file with stronger evidence",
        _ => "evidence not recorded (extract again)",
    }
}

/// Why files are about no problem, in words; `None` for a reason this version has no words
/// for (the page shows the stored reason as it is).
fn no_problem_words(reason: &str) -> Option<&'static str> {
    Some(match reason {
        "step" => "a step of a campaign: its definitions (or lemmas) are equally those of several problems' files, and nothing else names one",
        "collection" => "a collection: its theorems are named after several problems (each is a statement of its own problem)",
        "title" => "its title names a conjecture that its path's label is not",
        "library" => "a module of a library package: it states no problem of its own",
        "test" => "a test: it checks something, it states no problem",
        "topic" => "named by its sketch only: topic words of a sketch name, which name no problem",
        "none" => "nothing names a problem: a file stating no theorem of a problem",
        _ => return None,
    })
}

fn best_result(p: &ProblemRow) -> String {
    let mut parts = Vec::new();
    if let Some(b) = &p.best_result {
        parts.push(esc(b));
    }
    if let Some(a) = &p.best_attempt {
        let holes = if a.holes > 0 {
            format!(", {} holes", a.holes)
        } else {
            String::new()
        };
        let broken = if a.parse_errors > 0 {
            format!(", {}", count(a.parse_errors as usize, "syntax error"))
        } else {
            String::new()
        };
        parts.push(format!(
            "<span class=\"badge k-{}\">{}</span> {}{holes}{broken}",
            a.kind.as_str(),
            svg::kind_word(a.kind),
            esc(&match a.slot {
                Some(slot) => format!("slot{slot}"),
                None => file_name(&a.file),
            })
        ));
    }
    // The proof our status rests on, when no attempt shown is it.
    if let Some(src) = p
        .proof_source
        .as_deref()
        .filter(|s| p.best_attempt.as_ref().is_none_or(|a| a.file != *s))
    {
        // A problem of one file: that file (its section names it).
        if p.files == 1 {
            parts.push("proof: its file".to_string());
        } else {
            parts.push(format!("proof <code>{}</code>", esc(&file_name(src))));
        }
    }
    if parts.is_empty() {
        "—".to_string()
    } else {
        parts.join(" · ")
    }
}

/// The last component of a path (the table has room for no more).
fn file_name(path: &str) -> String {
    path.rsplit(['/', '\\']).next().unwrap_or(path).to_string()
}

/// The longest directory prefix (ending in a separator) all `paths` share; empty when none.
fn common_dir<'a>(paths: impl Iterator<Item = &'a str>) -> String {
    let mut common: Option<&str> = None;
    for p in paths {
        let dir = p.rfind(['/', '\\']).map_or("", |i| &p[..=i]);
        common = Some(match common {
            None => dir,
            Some(c) => {
                let n = c
                    .char_indices()
                    .zip(dir.chars())
                    .take_while(|((_, a), b)| a == b)
                    .last()
                    .map_or(0, |((i, a), _)| i + a.len_utf8());
                let shared = &c[..n];
                shared.rfind(['/', '\\']).map_or("", |i| &shared[..=i])
            }
        });
    }
    common.unwrap_or("").to_string()
}

/// `n word` or `n words`.
pub fn count(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// A count that may be fractional (a partial attempt counts half).
fn num(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else {
        format!("{v:.1}")
    }
}

/// How to read the page: the status and evidence words, said once at its top.
const LEGEND: &str = "<div class=\"legend\"><h2 class=\"legend-h\">How to read this page</h2><dl>\
<dt>Problem</dt><dd>the mathematics a file states, whatever the file is called; its files are the sketches sent and the results Aristotle returned (<i>attempts</i>).</dd>\
<dt>Our status</dt><dd><span class=\"badge s-proven\">proven</span> a complete, unconditional proof of the problem's own statement that a checker compiled (confidence <i>verified</i> or <i>high</i>); \
<span class=\"badge s-partial\">partial</span> something short of that: a case, a lemma, a proof with holes, or a complete proof nobody checked (confidence <i>medium</i>: <code>mk find</code> says <i>complete, unchecked</i>); \
<span class=\"badge s-open\">open</span> nothing proven; <span class=\"badge s-false\">false</span> disproved as stated. \
Only files that parse whole count: what a file with syntax errors proves counts for nothing. The <i>literature</i>'s status (open, solved), as a catalogue states it, is kept apart.</dd>\
<dt>Attempt</dt><dd>an Aristotle request, counted once by its best returned file: <i>proven</i>, <i>partial</i> (holes left), <i>budget reached</i> (stopped early), <i>failed</i>.</dd>\
<dt>Why (evidence)</dt><dd>what says a file is about its problem, strongest first: <i>tracking</i> (tracking.db's submission); <i>own words</i> (a catalogue attribute, a theorem named after it, its leading comment); <i>scheme</i> (a known file or folder naming scheme); <i>catalogue</i>; <i>naming</i> (the users' sketch, slot or campaign-folder names); <i>definitions</i> (it defines what the problem's files define); <i>copy</i> (a copy of such a file); <i>topic</i> (words of a sketch name only, the last resort). \
A problem whose files rest on topic words only is <i>named by its sketch only</i>: its status is a label's, not a stated problem's. \
<i>Same statement as</i>: another id whose main statement is the same (the same fingerprint): linked, never merged.</dd>\
</dl></div>";

const STYLE: &str = r#"
:root{color-scheme:light dark;--bg:#fff;--fg:#1c1d1f;--muted:#5b5f66;--line:#d5d8dc;--card:#f4f5f7;--link:#0a58a8;
--proven:#0072b2;--on-proven:#fff;--partial:#56b4e9;--budget:#e69f00;--failed:#d55e00;--open:#8a8f98;--inflight:#f0e442;--false:#cc79a7;--lit:#7a7f87}
@media (prefers-color-scheme:dark){:root{--bg:#141619;--fg:#e4e6ea;--muted:#a3a8b0;--line:#373b41;--card:#1e2125;--link:#7db9f0;
--proven:#3f9fe6;--on-proven:#000;--partial:#a3daf7;--budget:#f0a92a;--failed:#f27a35;--open:#8d939c;--inflight:#f0e442;--false:#e08fbf;--lit:#8d939c}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
header,main{max-width:1360px;margin:0 auto;padding:0 16px}
header{padding-top:16px}
h1{margin:.2em 0}h2{margin-top:1.6em;border-bottom:1px solid var(--line);padding-bottom:.2em}h3{margin:1.4em 0 .4em}h4{margin:1em 0 .3em}
a{color:var(--link)}code,pre{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
nav{display:flex;gap:16px;flex-wrap:wrap;margin:8px 0 0;padding:8px 0;border-bottom:1px solid var(--line);position:sticky;top:0;background:var(--bg);z-index:1}
.meta,.note,.source,.more{color:var(--muted)}.note{font-size:14px}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:0}.cards div{background:var(--card);padding:8px 14px;border-radius:8px;min-width:120px}
.cards dt{font-size:13px;color:var(--muted)}.cards dd{margin:0;font-size:22px;font-weight:600}
.figs{display:flex;flex-wrap:wrap;gap:24px}
figure{margin:16px 0}figcaption{font-weight:600;margin-bottom:4px}
svg.chart{max-width:100%;height:auto;display:block}
svg.chart text{fill:var(--fg);font:12px system-ui,sans-serif}svg.chart .tick,svg.chart .val{fill:var(--muted);font-size:11px}
svg.chart .axis-label{font-size:12px;fill:var(--muted)}svg.chart .empty{fill:var(--muted)}
line.grid{stroke:var(--line)}line.axis{stroke:var(--muted)}
.line{fill:none;stroke:var(--proven);stroke-width:2}.dot{fill:var(--proven)}.ci{stroke:var(--fg);stroke-width:2}
.badge{display:inline-block;padding:0 6px;border-radius:4px;font-size:12px;color:#000;background:var(--card);white-space:nowrap}
.k-proven{fill:var(--proven);background:var(--proven)}.k-partial{fill:var(--partial);background:var(--partial)}
.k-budget_reached{fill:var(--budget);background:var(--budget)}.k-failed{fill:var(--failed);background:var(--failed)}
.s-proven{fill:var(--proven);background:var(--proven)}.s-partial{fill:var(--partial);background:var(--partial)}
.s-open{fill:var(--open);background:var(--open)}.s-false{fill:var(--false);background:var(--false)}
.s-in_flight{fill:var(--inflight);background:var(--inflight)}.s-none,.lit{fill:var(--lit);background:var(--lit)}
.badge.k-proven,.badge.s-proven{color:var(--on-proven)}
.badge.c-verified{background:var(--proven);color:var(--on-proven)}.badge.c-high{background:var(--partial);color:#000}
.badge.c-medium,.badge.c-low{background:var(--card);color:var(--fg);border:1px solid var(--line)}.badge.c-disproven{background:var(--failed);color:#000}
table.data{border-collapse:collapse;font-size:13px;margin:8px 0}
table.data th,table.data td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
table.data td.n{text-align:right;font-variant-numeric:tabular-nums}table.data td.t,table.attempts td:first-child{white-space:nowrap}
table.data code,ul.items code{word-break:break-all}p code,h4 code,h3{overflow-wrap:anywhere}
table.data th button{all:inherit;cursor:pointer;padding:0}table.data th[aria-sort=ascending] button::after{content:" ▲"}table.data th[aria-sort=descending] button::after{content:" ▼"}
.scroll{overflow-x:auto}#problems-table td:nth-child(10){min-width:9em}#problems-table td:first-child{min-width:11em;max-width:20em;overflow-wrap:anywhere}
#problems-table td:nth-child(n+5):nth-child(-n+9){text-align:right;font-variant-numeric:tabular-nums}#problems-table td:nth-child(11){white-space:nowrap}
.filters{display:flex;flex-wrap:wrap;gap:12px;align-items:center;margin:8px 0}.filters[hidden]{display:none}
.filters input,.filters select{font:inherit;padding:2px 6px;background:var(--bg);color:var(--fg);border:1px solid var(--line);border-radius:4px}
section.problem{border-top:1px solid var(--line);padding:4px 0 8px;content-visibility:auto;contain-intrinsic-size:auto 420px}
pre.statement{white-space:pre-wrap;background:var(--card);padding:8px;border-radius:6px;margin:4px 0}
ul.items,ul.similar{margin:4px 0;padding-left:20px}ul.items li{margin:3px 0}.why{color:var(--muted)}p.evidence{margin:4px 0}.weak{font-style:italic;color:var(--muted)}code.cmd{display:block;margin-top:4px;word-break:break-all}
figure.timeline{margin:4px 0}
details summary{cursor:pointer;color:var(--muted);font-size:13px}
#problems-list>summary{font-size:15px;color:var(--link);padding:4px 0}
.legend{font-size:14px;margin:8px 0;padding:4px 12px;background:var(--card);border-radius:8px}.legend-h{font-size:15px;margin:.4em 0;border:0}
.legend dl{margin:0}.legend dt{font-weight:600;margin-top:4px}.legend dd{margin:0 0 0 1em}
ul.attention{padding-left:20px}ul.attention li{margin:6px 0}ul.attention details{display:inline}p.standing,p.same,p.aliases{margin:4px 0}
:target{scroll-margin-top:48px}
"#;

const SCRIPT: &str = r#"<script>
(function () {
  "use strict";
  function value(cell, numeric) {
    var v = cell.getAttribute("data-v");
    if (v === null) { v = cell.textContent.trim(); }
    if (numeric) { var n = parseFloat(v); return isNaN(n) ? -Infinity : n; }
    return v.toLowerCase();
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = th.textContent;
      th.textContent = "";
      th.appendChild(button);
      button.addEventListener("click", function () {
        var numeric = th.getAttribute("data-type") === "num";
        var current = th.getAttribute("aria-sort");
        var dir = current ? (current === "ascending" ? -1 : 1) : (numeric ? -1 : 1);
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = value(a.cells[col], numeric), y = value(b.cells[col], numeric);
          return (x < y ? -1 : x > y ? 1 : 0) * dir;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll(".filters"), function (box) {
    var table = document.getElementById(box.getAttribute("data-for"));
    if (!table) { return; }
    var controls = box.querySelectorAll("input, select");
    var count = box.querySelector("output");
    function apply() {
      var shown = 0;
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var ok = true;
        Array.prototype.forEach.call(controls, function (c) {
          var want = c.value.trim();
          if (!want) { return; }
          var col = c.getAttribute("data-col");
          if (col !== null) {
            // A select matches the cell's text, or its first words (a status before its
            // confidence, the strongest evidence before the rest).
            var text = row.cells[+col].textContent.trim();
            ok = ok && (text === want || text.indexOf(want + " ") === 0);
          }
          else { ok = ok && row.textContent.toLowerCase().indexOf(want.toLowerCase()) >= 0; }
        });
        row.hidden = !ok;
        if (ok) { shown += 1; }
      });
      count.textContent = shown + " shown";
    }
    Array.prototype.forEach.call(controls, function (c) { c.addEventListener("input", apply); });
    box.hidden = false;
    apply();
  });
}());
</script>"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            esc(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(esc("a\u{0}b\nc"), "a\u{FFFD}b\nc");
    }

    #[test]
    fn anchors_are_safe_and_distinct() {
        assert_eq!(anchor("erdos_850"), "p-erdos_850");
        assert_eq!(anchor("a b\"<"), "p-a.20b.22.3c");
        assert_ne!(anchor("a.b"), anchor("a_b"));
        assert_ne!(anchor("a.2eb"), anchor("a.b"));
        assert!(anchor("é").is_ascii());
    }
}
