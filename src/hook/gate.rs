//! The gate's one question, asked before a write (PreToolUse), at the end of a turn (Stop) and
//! by `mf splice`: does going from `before` to `after` gut a proof or add an axiom?
//!
//! The answer comes from [`decide::decide`], the declaration-by-declaration engine that
//! PostToolUse uses too; this module only renders it as a reason a model can act
//! on: the rule and the declaration first, what to do instead last, under [`MAX_REASON_CHARS`].

use super::baseline::{Baseline, Origin};
use super::clip;
use super::decide::{self, Decision};

/// Claude Code shows a deny or block reason to the model as it is; a long one buries the rule.
pub const MAX_REASON_CHARS: usize = 2000;
/// Findings named in one reason; the rest are counted.
const SHOWN: usize = 4;

/// Compares two versions of file `name`. `before` is `None` for a file that did not exist.
pub fn check(name: &str, before: Option<&str>, after: &str) -> Decision {
    let baseline = Baseline::Known {
        texts: vec![before.unwrap_or_default().to_string()],
        origin: if before.is_some() {
            Origin::ToolResponse
        } else {
            Origin::Nothing
        },
    };
    let mut d = decide::decide(name, after, &baseline, &[]);
    // Advice (changed statements, removed proofs) is PostToolUse's to give, once.
    d.advice.clear();
    d
}

/// The reason for denying or blocking on `blocks`, each a file name and a line of a
/// [`Decision`]: `Rule: … F.lean: theorem foo (lines 3-9): …`, then what to do instead.
/// `what` is what is refused ("This edit", "Stopping").
pub fn reason(what: &str, blocks: &[(String, String)]) -> String {
    let mut out = String::from(
        "[math-forge] Rule: never replace a proof with sorry/admit, never add an axiom.",
    );
    for line in findings(blocks) {
        out.push_str(&format!("\n- {line}"));
    }
    out.push_str(&format!(
        "\n{what} is refused. Instead: keep the existing proof (or finish it without a hole); \
         state a missing fact as a new lemma with its own sorry and use it; never assume \
         what is unproven with an axiom. `mf sorries FILE` lists a file's holes; `git diff` \
         shows what changed since the last commit."
    ));
    clip_keep_lines(&out, MAX_REASON_CHARS)
}

/// One short line per finding (`F.lean: theorem foo (lines 3-9): …`), the first four, then
/// how many more.
pub fn findings(blocks: &[(String, String)]) -> Vec<String> {
    let mut out: Vec<String> = blocks
        .iter()
        .take(SHOWN)
        .map(|(name, b)| {
            // A finding's first sentence names the declaration and the lines; the removed code
            // that follows is in the file's history, not needed here.
            let head = b.split(" The edit removed:").next().unwrap_or(b);
            let head = head.trim_start_matches("- ");
            format!("{name}: {}", clip(head, 300))
        })
        .collect();
    if blocks.len() > SHOWN {
        out.push(format!("… and {} more", blocks.len() - SHOWN));
    }
    out
}

/// The block lines of a PostToolUse reason, bounded: the first four, each at most 400
/// characters, then how many more.
pub fn bounded_blocks(blocks: &[String]) -> String {
    let mut out: Vec<String> = blocks
        .iter()
        .take(SHOWN)
        .map(|b| clip_keep_lines(b, BLOCK_CHARS))
        .collect();
    if blocks.len() > SHOWN {
        out.push(format!("- … and {} more", blocks.len() - SHOWN));
    }
    out.join("\n")
}

/// A reason cut to [`MAX_REASON_CHARS`].
pub fn cap(reason: String) -> String {
    clip_keep_lines(&reason, MAX_REASON_CHARS)
}

/// Most characters of one block line in a PostToolUse reason.
const BLOCK_CHARS: usize = 400;

/// Cuts `s` to at most `max` characters, keeping line breaks.
fn clip_keep_lines(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut cut: String = s.chars().take(max - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROVEN: &str = "theorem t : 1 = 1 := by\n  rfl\n";

    #[test]
    fn gutting_and_axioms_are_found_and_sketches_are_not() {
        let gutted = check("A.lean", Some(PROVEN), "theorem t : 1 = 1 := by\n  sorry\n");
        assert_eq!(gutted.blocks.len(), 1, "{gutted:?}");
        let axiom = check(
            "A.lean",
            Some(PROVEN),
            &format!("{PROVEN}axiom ax : False\n"),
        );
        assert_eq!(axiom.blocks.len(), 1, "{axiom:?}");
        let sketch = check("A.lean", None, "theorem u : 2 = 2 := by\n  sorry\n");
        assert!(sketch.blocks.is_empty(), "{sketch:?}");
        let new_axiom = check("A.lean", None, "axiom ax : False\n");
        assert_eq!(new_axiom.blocks.len(), 1);
    }

    #[test]
    fn post_tool_use_blocks_are_bounded() {
        let blocks: Vec<String> = (0..9)
            .map(|i| format!("- theorem t{i}: {}", "y".repeat(900)))
            .collect();
        let b = bounded_blocks(&blocks);
        assert_eq!(b.lines().count(), 5, "{b}");
        assert!(b.ends_with("\n- … and 5 more"), "{b}");
        assert!(b.lines().all(|l| l.chars().count() <= BLOCK_CHARS));
        let long = cap("z".repeat(5000));
        assert_eq!(long.chars().count(), MAX_REASON_CHARS);
    }

    #[test]
    fn reason_starts_with_the_rule_and_stays_short() {
        let blocks: Vec<(String, String)> = (0..50)
            .map(|i| ("A.lean".to_string(), format!("- theorem t{i} (lines 1-2): had proof code without sorry/admit, now has sorry at line 2. The edit removed:\n    {}", "x".repeat(500))))
            .collect();
        let r = reason("This edit", &blocks);
        assert!(r.starts_with("[math-forge] Rule: never replace a proof with sorry/admit"));
        assert!(
            r.contains("\n- A.lean: theorem t0 (lines 1-2): had proof code"),
            "{r}"
        );
        assert!(r.contains("… and 46 more"), "{r}");
        assert!(r.contains("Instead: keep the existing proof"), "{r}");
        assert!(!r.contains("xxxx"), "removed code is left out: {r}");
        assert!(r.chars().count() < MAX_REASON_CHARS);
    }
}
