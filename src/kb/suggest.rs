//! "Did you mean …": the known problem ids closest to one that matched nothing.
//!
//! Ids are compared by their [`problem_key`] (case, spaces, `_` and `-` ignored): first those
//! that contain the key or are contained in it, then those within a small edit distance. One
//! pass over the distinct ids the knowledge base knows (problems, findings, strategies).

use super::sql::{problem_key, text_at};
use super::{Kb, Result};

/// Most distinct ids read; a knowledge base has a few thousand problems at most.
const MAX_IDS: usize = 50_000;

impl Kb {
    /// Up to `limit` known problem ids closest to `query`, closest first.
    pub fn closest_problem_ids(&self, query: &str, limit: usize) -> Result<Vec<String>> {
        let key = problem_key(query.trim());
        if key.is_empty() {
            return Ok(Vec::new());
        }
        let ids = self.rows(
            &format!(
                "SELECT id FROM problems WHERE id IS NOT NULL
                 UNION SELECT problem_id FROM findings WHERE problem_id IS NOT NULL
                 UNION SELECT problem_id FROM strategies WHERE problem_id IS NOT NULL
                 LIMIT {MAX_IDS}"
            ),
            [],
            |r| text_at(r, 0).unwrap_or_default(),
        )?;
        Ok(closest(&key, ids, limit))
    }
}

/// The ids closest to `key` (already a problem key).
pub(super) fn closest(key: &str, ids: Vec<String>, limit: usize) -> Vec<String> {
    let max_distance = (key.chars().count() / 3).clamp(1, 4);
    let mut scored: Vec<(usize, String)> = Vec::new();
    for id in ids {
        let k = problem_key(&id);
        if k.is_empty() || k == key {
            continue;
        }
        let score = if k.contains(key) || key.contains(&k) {
            0
        } else {
            match bounded_distance(key, &k, max_distance) {
                Some(d) => d,
                None => continue,
            }
        };
        scored.push((score, id));
    }
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(limit).map(|(_, id)| id).collect()
}

/// Levenshtein distance between `a` and `b` when at most `max`, else `None`. Work is bounded
/// by the band of width `2 * max + 1` around the diagonal.
fn bounded_distance(a: &str, b: &str, max: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    let inf = max + 1;
    let mut prev: Vec<usize> = (0..=b.len()).map(|j| j.min(inf)).collect();
    let mut cur = vec![inf; b.len() + 1];
    for i in 1..=a.len() {
        let lo = i.saturating_sub(max).max(1);
        let hi = (i + max).min(b.len());
        cur.iter_mut().for_each(|c| *c = inf);
        cur[0] = i.min(inf);
        for j in lo..=hi {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j - 1] + cost)
                .min(prev[j] + 1)
                .min(cur[j - 1] + 1)
                .min(inf);
        }
        if cur.iter().all(|&c| c > max) {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    (prev[b.len()] <= max).then_some(prev[b.len()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_is_bounded() {
        assert_eq!(bounded_distance("erdos850", "erdos850", 2), Some(0));
        assert_eq!(bounded_distance("erdos850", "erdos805", 2), Some(2));
        assert_eq!(bounded_distance("erdos850", "erdos85", 2), Some(1));
        assert_eq!(bounded_distance("erdos850", "tuzanu4", 2), None);
    }

    #[test]
    fn closest_first() {
        let ids = ["erdos_850", "erdos_364", "tuza_nu4", "erdos_85"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            closest(&problem_key("erdos_805"), ids, 3),
            ["erdos_85", "erdos_850"]
        );
        let ids = vec!["erdos_850".to_string(), "tuza_nu4".to_string()];
        assert_eq!(closest(&problem_key("tuza"), ids, 3), ["tuza_nu4"]);
    }
}
