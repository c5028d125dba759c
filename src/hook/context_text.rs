//! [`Context`] as plain text for an agent (`mk context`, the MCP tool, the SessionStart
//! briefing, subagent prompts), cut to a size budget section by section so every section keeps
//! its first lines.

use crate::kb::{Context, ContextItem};

use super::clip;

/// Variants named in the problem section at most.
const VARIANTS_LISTED: usize = 5;

/// The text of `ctx` in at most `max` characters (0: no limit).
pub fn render(ctx: &Context, max: usize) -> String {
    let mut sections: Vec<(String, Vec<String>)> = Vec::new();
    let head = match &ctx.problem {
        Some(p) => {
            // Short: a subagent's whole context has a small budget.
            let mut h = format!(
                "Problem {} ({}; domain {}): {}",
                p.id,
                p.standing(),
                p.domain_id.as_deref().unwrap_or("unknown"),
                p.name
            );
            if let Some(s) = &p.statement {
                h.push_str(&format!("\n  Statement: {}", clip(s, 300)));
                if let Some(src) = &p.statement_source {
                    h.push_str(&format!("\n    from {}", clip(src, 200)));
                }
            }
            if let Some(a) = p.attempts.filter(|a| a.proven + a.partial + a.failed > 0) {
                h.push_str(&format!(
                    "\n  Attempts: {} proven, {} partial, {} failed",
                    a.proven, a.partial, a.failed
                ));
            }
            for v in p.variants.iter().take(VARIANTS_LISTED) {
                h.push_str(&format!(
                    "\n  Variant {} ({}): {}",
                    v.theorem_name,
                    v.standing(),
                    clip(&v.statement, 200)
                ));
            }
            if p.variants.len() > VARIANTS_LISTED {
                h.push_str(&format!(
                    "\n  … {} more variants",
                    p.variants.len() - VARIANTS_LISTED
                ));
            }
            h
        }
        None => format!("Problem {}: not in the knowledge base", ctx.query),
    };
    let items = |list: &[ContextItem]| -> Vec<String> { list.iter().map(item).collect() };
    sections.push(("Established facts".into(), items(&ctx.facts)));
    sections.push(("Failed approaches".into(), items(&ctx.failed_approaches)));
    sections.push(("False lemmas".into(), items(&ctx.false_lemmas)));
    sections.push((
        "Techniques by observed success".into(),
        ctx.techniques
            .iter()
            .map(|r| {
                format!(
                    "- {} (estimated success {:.0}%: {} of {} attempts succeeded, a partial counting ½)",
                    r.technique,
                    r.estimate * 100.0,
                    r.successes,
                    r.successes + r.failures
                )
            })
            .collect(),
    ));
    sections.push((
        "Similar problems".into(),
        ctx.similar_problems
            .iter()
            .map(|p| {
                let shared = if p.shared_constants > 0 {
                    format!("; {} constants in common", p.shared_constants)
                } else {
                    String::new()
                };
                format!(
                    "- {} {}: {} ({} proven, {} failed{shared})",
                    p.id,
                    clip(&p.name, 60),
                    p.status.as_deref().unwrap_or("unknown"),
                    p.proven_count,
                    p.failed_count
                )
            })
            .collect(),
    ));
    let mut out = head;
    let budget = if max == 0 { usize::MAX } else { max };
    // Round-robin: the first line of every section, then the second, … until the budget.
    let mut shown: Vec<Vec<&String>> = vec![Vec::new(); sections.len()];
    let mut used = out.chars().count()
        + sections
            .iter()
            .filter(|(_, l)| !l.is_empty())
            .map(|(t, _)| t.len() + 3)
            .sum::<usize>();
    let longest = sections.iter().map(|(_, l)| l.len()).max().unwrap_or(0);
    'fill: for row in 0..longest {
        for (i, (_, lines)) in sections.iter().enumerate() {
            if let Some(line) = lines.get(row) {
                let cost = line.chars().count() + 1;
                if used + cost > budget {
                    break 'fill;
                }
                used += cost;
                shown[i].push(line);
            }
        }
    }
    for ((title, lines), kept) in sections.iter().zip(&shown) {
        if lines.is_empty() {
            continue;
        }
        out.push_str(&format!("\n{title}:"));
        for l in kept {
            out.push('\n');
            out.push_str(l);
        }
        if kept.len() < lines.len() {
            out.push_str(&format!("\n  … {} more", lines.len() - kept.len()));
        }
    }
    out
}

fn item(i: &ContextItem) -> String {
    let mut s = format!("- {}", clip(&i.title, 120));
    if let Some(c) = &i.confidence {
        s.push_str(&format!(" [{c}]"));
    }
    if let Some(w) = &i.why {
        s.push_str(&format!(": {}", clip(w, 200)));
    }
    if let Some(src) = &i.source {
        // The file name says which result; the directories rarely matter.
        let name = src.rsplit('/').next().unwrap_or(src);
        s.push_str(&format!(" (source: {})", clip(name, 80)));
    }
    if i.used > 0 {
        s.push_str(&format!(" (used {}×)", i.used));
    }
    s
}
