//! The briefing's account of what earlier sessions in this project proved and failed at: the
//! session captures ([`crate::kb::derive_captures`]) of `.lean` files under the session's
//! directory, one line per declaration, from the latest session that touched it. Declarations
//! still open come first, with the approaches that failed, so the next agent does not repeat
//! them.

use std::collections::BTreeMap;
use std::path::Path;

use super::clip;
use crate::kb::{Kb, RecentCapture};

/// Most declarations shown.
pub const MAX_LINES: usize = 5;
/// Most characters of one line.
const LINE_CHARS: usize = 240;
/// Captures read to find them.
const ROWS: usize = 60;

/// The section, `None` when no earlier session captured anything under `dir`.
pub fn section(kb: &Kb, dir: &Path) -> crate::kb::Result<Option<String>> {
    let rows = kb.recent_captures_under(&dir.to_string_lossy(), ROWS)?;
    // Per (file, declaration), the captures of the latest session that has any.
    let mut order: Vec<(String, String)> = Vec::new();
    let mut latest: BTreeMap<(String, String), Vec<&RecentCapture>> = BTreeMap::new();
    for r in &rows {
        let key = (r.file.clone(), r.declaration.clone());
        match latest.get_mut(&key) {
            Some(v) if v[0].session_id == r.session_id => v.push(r),
            Some(_) => {}
            None => {
                order.push(key.clone());
                latest.insert(key, vec![r]);
            }
        }
    }
    let mut open = Vec::new();
    let mut closed = Vec::new();
    for key in &order {
        if !Path::new(&key.0).is_file() {
            continue;
        }
        let caps = &latest[key];
        let shown = Path::new(&key.0)
            .strip_prefix(dir)
            .unwrap_or(Path::new(&key.0))
            .display()
            .to_string();
        let of = |kind: &str| caps.iter().find(|c| c.kind == kind);
        let line = if let Some(f) = of("failure") {
            open.push(format!(
                "`{}` ({shown}): still open; tried {}",
                key.1,
                attempts(&f.description)
            ));
            continue;
        } else if let Some(t) = of("technique") {
            let mut line = format!(
                "`{}` ({shown}): closed with {} ({})",
                key.1,
                t.proof_technique.as_deref().unwrap_or("a proof"),
                if t.confidence == "verified" {
                    "`mf verify` passed"
                } else {
                    "not verified"
                }
            );
            if let Some(f) = of("failed_attempts") {
                line.push_str(&format!("; failed first: {}", attempts(&f.description)));
            }
            line
        } else if of("false_lemma").is_some() {
            format!("`{}` ({shown}): proves a negation (a false lemma)", key.1)
        } else {
            continue;
        };
        closed.push(line);
    }
    if open.is_empty() && closed.is_empty() {
        return Ok(None);
    }
    let lines: Vec<String> = open
        .into_iter()
        .chain(closed)
        .take(MAX_LINES)
        .map(|l| format!("- {}", clip(&l, LINE_CHARS)))
        .collect();
    Ok(Some(format!(
        "EARLIER SESSIONS HERE (`mk failed NAME` for details):\n{}",
        lines.join("\n")
    )))
}

/// The attempts of a capture's description (`attempt 1: `…` — Lean rejected it (…); …`),
/// shortened: the proofs, each marked when Lean rejected it.
fn attempts(description: &str) -> String {
    let Some(at) = description.find("attempt 1: ") else {
        return "(attempts not recorded)".into();
    };
    let rest = &description[at..];
    let rest = rest.split("; then closed with").next().unwrap_or(rest);
    let parts: Vec<String> = rest
        .split("; attempt ")
        .map(|p| {
            let p = p.trim_end_matches('.');
            let p = p.split_once(": ").map_or(p, |(_, proof)| proof);
            p.replace(" — Lean rejected it", ": Lean rejected it")
        })
        .collect();
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_are_the_proofs_and_verdicts() {
        let d = "`b` in /p/F.lean still has 1 hole(s) after 2 approaches: attempt 1: `by norm_num` — Lean rejected it (unsolved goals); attempt 2: `by nlinarith [sq_nonneg x]`.";
        assert_eq!(
            attempts(d),
            "`by norm_num`: Lean rejected it (unsolved goals), `by nlinarith [sq_nonneg x]`"
        );
        let d = "`a` in /p/F.lean: attempt 1: `by norm_num` — Lean rejected it (unsolved goals); then closed with omega.";
        assert_eq!(
            attempts(d),
            "`by norm_num`: Lean rejected it (unsolved goals)"
        );
    }
}
