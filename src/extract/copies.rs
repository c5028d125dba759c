//! Copies of one output are about one problem. The users copy a result into several folders
//! (an inbox, a `proven/` folder, the folder of the campaign), and Aristotle's answer to one
//! request comes as an output file and as the project it returned unpacked: files with the
//! same content that states a theorem or lemma, and files of the same request uuid, are one
//! output; so are an input and the output returned for it (one submission: the same folder,
//! slot and name but for `_aristotle`, `_result`, …). Each copy's own evidence may differ (only one folder names the problem), so they
//! all take the problem the strongest evidence any of them has names
//! ([`problem::evidence::of_copies`]); a copy that states several problems (a collection)
//! keeps none.
//!
//! The run decides this before extracting: the copies not stored unchanged are read (their
//! analyses kept for extraction, so nothing is parsed twice), those stored unchanged count
//! with the problem and evidence stored for them.

use std::collections::HashMap;
use std::path::Path;

use rayon::prelude::*;

use super::{given_problem, is_unchanged, naming_of, Overrides, SharedAnalyses, Survey};
use crate::kb::KnownSource;
use crate::lean::Source;
use crate::problem::{self, Evidence};

/// The problems copies decided, by source key.
#[derive(Debug, Default)]
pub(super) struct Copies {
    /// A file with copies → the problem they decided (`None`: they named none, or named
    /// different ones equally strongly).
    decided: HashMap<String, Option<String>>,
}

/// What one copy says of its problem by its own evidence.
struct Own {
    problem_id: Option<String>,
    evidence: Option<Evidence>,
    /// It states a theorem or lemma; `None` when it was not read (stored unchanged).
    states: Option<bool>,
}

impl Copies {
    /// Decides the problem of every group of copies among the files of `survey`.
    pub(super) fn of(
        survey: &Survey<'_>,
        known: &HashMap<String, KnownSource>,
        overrides: &Overrides,
        ctx: &problem::Context,
        shared: &mut SharedAnalyses,
    ) -> Copies {
        let files = &survey.files;
        let mut by_uuid: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut by_hash: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, f) in files.iter().enumerate() {
            if let Some(u) = &f.uuid {
                by_uuid.entry(u).or_default().push(i);
            }
            if let Some(h) = &f.hash {
                by_hash.entry(h).or_default().push(i);
            }
        }
        // An input and the output Aristotle returned for it (the same folder, slot and name but
        // for its decorations) are one submission: the output's evidence and the input's
        // words are about one problem.
        let mut by_submission: HashMap<(std::path::PathBuf, i64, String), Vec<usize>> =
            HashMap::new();
        for (i, f) in files.iter().enumerate() {
            if let Some(s) = problem::naming::submission_of(f.path) {
                by_submission.entry(s).or_default().push(i);
            }
        }
        by_uuid.retain(|_, v| v.len() > 1);
        by_hash.retain(|_, v| v.len() > 1);
        by_submission.retain(|_, v| v.len() > 1);
        let mut members: Vec<usize> = by_uuid
            .values()
            .chain(by_hash.values())
            .chain(by_submission.values())
            .flatten()
            .copied()
            .collect();
        members.sort_unstable();
        members.dedup();
        if members.is_empty() {
            return Copies::default();
        }
        let given = given_problem(overrides);
        let keys: Vec<String> = members.iter().map(|&i| files[i].key.clone()).collect();
        let stored: Vec<Option<&KnownSource>> = members
            .iter()
            .zip(&keys)
            .map(|(&i, key)| {
                let f = &files[i];
                let naming = naming_of(f.path, overrides);
                known.get(key).filter(|k| {
                    f.hash
                        .as_deref()
                        .is_some_and(|h| is_unchanged(k, h, &naming, given.as_deref(), ctx))
                })
            })
            .collect();
        for (&i, s) in members.iter().zip(&stored) {
            if let (None, Some(h)) = (s, &files[i].hash) {
                shared.keep(h);
            }
        }
        let shared = &*shared;
        let own: Vec<Own> = members
            .par_iter()
            .zip(&keys)
            .zip(&stored)
            .map(|((&i, key), stored)| match stored {
                Some(k) => Own {
                    problem_id: k.problem_id.clone(),
                    evidence: k.problem_evidence.as_deref().and_then(Evidence::from_name),
                    states: None,
                },
                None => read_own(&files[i], key, overrides, ctx, shared),
            })
            .collect();
        // Groups: the same request always; the same content when it states something (two
        // projects' identical `Main.lean` of imports only are no copies of one output).
        let position: HashMap<usize, usize> =
            members.iter().enumerate().map(|(m, &i)| (i, m)).collect();
        let mut groups = UnionFind::new(members.len());
        for indices in by_uuid.values().chain(by_submission.values()) {
            for pair in indices.windows(2) {
                groups.union(position[&pair[0]], position[&pair[1]]);
            }
        }
        for indices in by_hash.values() {
            let states = indices.iter().find_map(|i| own[position[i]].states);
            if states == Some(true) {
                for pair in indices.windows(2) {
                    groups.union(position[&pair[0]], position[&pair[1]]);
                }
            }
        }
        let mut components: HashMap<usize, Vec<usize>> = HashMap::new();
        for m in 0..members.len() {
            components.entry(groups.find(m)).or_default().push(m);
        }
        let mut decided = HashMap::new();
        for component in components.values().filter(|c| c.len() > 1) {
            let problem = problem::evidence::of_copies(
                component
                    .iter()
                    .map(|&m| (own[m].problem_id.as_deref(), own[m].evidence)),
            );
            for &m in component {
                if own[m].evidence != Some(Evidence::Collection) {
                    decided.insert(keys[m].clone(), problem.clone());
                }
            }
        }
        Copies { decided }
    }

    /// The problem the copies of the file `key` decided, if any.
    pub(super) fn decided(&self, key: &str) -> Option<&str> {
        self.decided.get(key).and_then(|d| d.as_deref())
    }

    /// Whether what is stored for `key` agrees with its copies: it has the problem they
    /// decided (or is a collection, which takes none), or they decided none and it does not
    /// hold a problem a copy gave it before.
    pub(super) fn settles(&self, key: &str, stored: &KnownSource) -> bool {
        let evidence = stored.problem_evidence.as_deref();
        match self.decided(key) {
            Some(d) => {
                evidence == Some(Evidence::Collection.as_str())
                    || stored.problem_id.as_deref() == Some(d)
            }
            None => evidence != Some(Evidence::Copy.as_str()),
        }
    }
}

/// Reads a copy that is not stored unchanged: its own problem and whether it states a theorem
/// or lemma. A file that cannot be read says nothing.
fn read_own(
    file: &super::SurveyedFile<'_>,
    key: &str,
    overrides: &Overrides,
    ctx: &problem::Context,
    shared: &SharedAnalyses,
) -> Own {
    let nothing = Own {
        problem_id: None,
        evidence: None,
        states: None,
    };
    let Some(hash) = &file.hash else {
        return nothing;
    };
    let Ok(bytes) = crate::lean::source::read_source_bytes(file.path) else {
        return nothing;
    };
    let Ok(source) = Source::from_bytes(file.path, bytes) else {
        return nothing;
    };
    let analysis = shared.analysis(key, hash, source);
    let naming = naming_of(Path::new(key), overrides);
    let found = problem::identify(
        &problem::FileView {
            path: Path::new(key),
            text: &analysis.text,
            outline: &analysis.outline,
            naming: &naming,
        },
        ctx,
        overrides.problem_id.as_deref(),
    );
    Own {
        problem_id: found.problem_id,
        evidence: found.evidence,
        states: Some(
            analysis
                .outline
                .declarations
                .iter()
                .any(|d| matches!(d.kind.as_str(), "theorem" | "lemma")),
        ),
    }
}

/// Disjoint sets of `0..n`.
struct UnionFind {
    parent: Vec<usize>,
}

impl UnionFind {
    fn new(n: usize) -> UnionFind {
        UnionFind {
            parent: (0..n).collect(),
        }
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent[a.max(b)] = a.min(b);
        }
    }
}
