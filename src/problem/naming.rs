//! Slot number, request uuid and the users' own problem naming from a result file's path.
//!
//! The problem this naming gives is the weakest evidence of a file's problem (see
//! [`crate::problem`]): it is used only where nothing stronger names one.
//!
//! The pipeline names files `slot614_erdos_850_prime_factor_triples_result.lean`,
//! `slot611_ft_p3_cubic_character_contradiction_result.lean`, `erdos128_finset_v3.lean`, …
//! Unpacked Aristotle projects name the file `Main.lean` (or `output.lean`) and put the meaning
//! in a directory: `yolo_w2_e672_chabauty_extracted/<uuid>_aristotle/RequestProject/Main.lean`.

use std::path::Path;

/// What a file's path says about the submission it came from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileNaming {
    pub slot: Option<i64>,
    pub problem_id: Option<String>,
    /// The Aristotle request uuid of a `<uuid>_aristotle/` directory the file sits in.
    pub uuid: Option<String>,
    /// The problem was read from a directory the file sits in (a generic `Main.lean`, a
    /// module of an unpacked project), not from the file's own name.
    pub problem_from_dir: bool,
    /// The file is part of a project Aristotle returned unpacked (`…_aristotle/`).
    pub in_project: bool,
    /// The path carries a mark of the submission pipeline ([`is_pipeline_path`]): only then
    /// is a name that fits no scheme the users' naming of a submission rather than a file name.
    pub pipeline: bool,
}

/// Words that decorate a name without naming the problem.
const DECORATIONS: &[&str] = &["result", "results", "aristotle", "output", "extracted"];

/// The submission a slot file belongs to, as its folder and name say: an input and the output
/// Aristotle returned for it (`slot456_classification.lean`, `slot456_classification_aristotle
/// .lean`, `…_result.lean`) are one submission. The folder, the slot, and the file's name
/// without its trailing decorations, lowercase; `None` for a file without a slot (its name
/// names no submission).
pub fn submission_of(path: &Path) -> Option<(std::path::PathBuf, i64, String)> {
    let naming = from_path(path);
    let slot = naming.slot?;
    if naming.problem_from_dir {
        return None;
    }
    let mut stem = path.file_stem()?.to_str()?.to_ascii_lowercase();
    while let Some(cut) = DECORATIONS.iter().find_map(|d| {
        stem.strip_suffix(d)
            .and_then(|head| head.strip_suffix(['_', '-']))
            .map(str::len)
    }) {
        stem.truncate(cut);
    }
    Some((path.parent()?.to_path_buf(), slot, stem))
}

/// The name of the submission an output of Aristotle was returned for, read from the output's
/// own name: `homfly_v2_RESULT.lean` → `homfly_v2`, `slot7_x_aristotle.lean` → `slot7_x`
/// (lowercase, its trailing decorations cut); `None` for a name without one (an input, or no
/// file of the pipeline).
pub fn output_of(path: &Path) -> Option<String> {
    let mut stem = path.file_stem()?.to_str()?.to_ascii_lowercase();
    let mut cut_any = false;
    while let Some(cut) = DECORATIONS.iter().find_map(|d| {
        stem.strip_suffix(d)
            .and_then(|head| head.strip_suffix(['_', '-']))
            .map(str::len)
    }) {
        stem.truncate(cut);
        cut_any = true;
    }
    (cut_any && !stem.is_empty()).then_some(stem)
}

/// File names that say nothing: the name is in a directory above.
const GENERIC_STEMS: &[&str] = &[
    "main", "output", "result", "results", "basic", "solution", "proof",
];

/// Directories between a generic file and the directory that names it.
const GENERIC_DIRS: &[&str] = &["requestproject", "src", "lean", "project"];

/// How many directories above a generic file are searched for a name or a uuid.
const ANCESTORS_SEARCHED: usize = 4;

/// Reads slot, problem id and uuid from the file's name, or, for a generic name such as
/// `Main.lean`, from the nearest directory with a meaningful name.
///
/// The problem id is an Erdős problem wherever the name mentions one (`erdos128`, `erdos_850`,
/// `e672` → `erdos_672`); otherwise the problem family and its number or variant (`ft_p3`,
/// `tuza_nu4`), failing that the first three words, as the spec's extractor did. Version
/// markers (`v2`, `v1b`), leading batch labels (`yolo`, `w2`, `mega3`) and decorations
/// (`result`, `aristotle`, …) are never part of it.
pub fn from_path(path: &Path) -> FileNaming {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let ancestors: Vec<&str> = path
        .ancestors()
        .skip(1)
        .take(ANCESTORS_SEARCHED)
        .filter_map(|a| a.file_name().and_then(|n| n.to_str()))
        .collect();
    let uuid = ancestors.iter().find_map(|dir| leading_uuid(dir));
    // A date folder (`runs/2026-11-03/output.lean`) is a run's, and the folders above it are
    // the runs': no name of the submission is above it.
    let directory = || {
        ancestors
            .iter()
            .copied()
            .take_while(|dir| !is_date(&dir.to_ascii_lowercase()))
            .find(|dir| is_meaningful_dir(dir))
    };
    // A file of a project Aristotle returned unpacked (`…_aristotle/RequestProject/X.lean`)
    // is named by the directory the project was unpacked into, like its `Main.lean`: a module
    // name (`Definitions`, `PowerfulConsecutive`) is no problem. Its own name counts only
    // where the directory names no problem and the module names an Erdős problem
    // (`results_v07/<uuid>/…_aristotle/RequestProject/Erdos389.lean`).
    let in_project = ancestors.iter().any(|dir| {
        dir.to_ascii_lowercase()
            .strip_suffix("_aristotle")
            .is_some()
    });
    // The slot comes from the file's own name before any directory's.
    let (slot, problem_id, problem_from_dir) =
        if GENERIC_STEMS.contains(&stem.to_ascii_lowercase().as_str()) {
            let (slot, problem) = directory().map_or((None, None), slot_and_problem);
            (slot, problem, true)
        } else if in_project {
            let (dir_slot, dir_problem) = directory().map_or((None, None), slot_and_problem);
            let (own_slot, own_problem) = slot_and_problem(stem);
            let own_problem = own_problem.filter(|p| p.starts_with("erdos_"));
            let from_dir = dir_problem.is_some();
            (own_slot.or(dir_slot), dir_problem.or(own_problem), from_dir)
        } else {
            let (slot, problem) = slot_and_problem(stem);
            (slot, problem, false)
        };
    let pipeline = slot.is_some() || in_project || is_pipeline_path(stem, &ancestors);
    FileNaming {
        slot,
        problem_id,
        uuid,
        problem_from_dir,
        in_project,
        pipeline,
    }
}

/// Words of a folder's name that mark the submission pipeline: what Aristotle's outputs are
/// kept in (`codex_results/`, `…_extracted/`, `output/`), and the pipeline's `submissions/`
/// folder (where tracking.db's contract keeps `submissions/tracking.db`).
const PIPELINE_FOLDER_WORDS: &[&str] = &[
    "result",
    "results",
    "output",
    "outputs",
    "extracted",
    "submission",
    "submissions",
];

/// Whether a file named `stem` below `ancestors` (nearest first) is a file of the submission
/// pipeline by its path: its name is decorated as an output ([`DECORATIONS`]: `…_result`,
/// `…_aristotle`), a folder above is named by a request uuid (or its first group) or a slot,
/// or a folder's name is, in the pipeline's own snake case, one of
/// [`PIPELINE_FOLDER_WORDS`] or starts or ends with one (`submissions/`, `codex_results/`,
/// `results_v07/`, `e672_chabauty_extracted/`). A folder a person named (`My Results (copy)`,
/// `aristotle-math-problems`) is no mark: it is where files were put. Anything else
/// (`Mathlib/Algebra/Group/Basic.lean`, `book/Chapter3/Lemma2.lean`, `pkg/Main.lean`) is a
/// file of a Lean project, whose name is only a file name.
fn is_pipeline_path(stem: &str, ancestors: &[&str]) -> bool {
    let decorated = stem
        .split(['_', '-', ' ', '.'])
        .any(|w| DECORATIONS.contains(&w.to_ascii_lowercase().as_str()));
    decorated
        || ancestors.iter().any(|dir| {
            let lower = dir.to_ascii_lowercase();
            let parts: Vec<&str> = lower.split('_').collect();
            let ends = [parts.first(), parts.last()];
            ends.iter()
                .flatten()
                .any(|w| PIPELINE_FOLDER_WORDS.contains(w))
                || parts.iter().any(|w| slot_number(w).is_some())
                || leading_uuid(dir).is_some()
                || is_hex_fragment(&lower)
        })
}

fn slot_and_problem(name: &str) -> (Option<i64>, Option<String>) {
    let mut words: Vec<&str> = name
        .split(['_', '-', ':', ' '])
        .filter(|w| !w.is_empty())
        .collect();
    let slot = words
        .iter()
        .position(|w| slot_number(w).is_some())
        .map(|i| {
            let n = slot_number(words[i]);
            words.remove(i);
            n
        });
    words.retain(|w| {
        let lower = w.to_ascii_lowercase();
        !DECORATIONS.contains(&lower.as_str()) && !is_version(&lower) && !is_hex_fragment(&lower)
    });
    while words
        .first()
        .is_some_and(|w| is_batch_label(&w.to_ascii_lowercase()))
    {
        words.remove(0);
    }
    (slot.flatten(), problem_id(&words))
}

/// `w4e` → (`w`, `4`, `e`): the leading ASCII letters, the digits after them, and the rest.
/// Slots, versions, batch labels and problem numbers are all words of this shape.
fn letters_digits_rest(word: &str) -> (&str, &str, &str) {
    let letters = word.len()
        - word
            .trim_start_matches(|c: char| c.is_ascii_alphabetic())
            .len();
    let (letters, after) = word.split_at(letters);
    let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let (digits, rest) = after.split_at(digits);
    (letters, digits, rest)
}

/// `slot614` → 614, `slot224c` → 224 (lettered variants of one slot).
fn slot_number(word: &str) -> Option<i64> {
    let (letters, digits, tail) = letters_digits_rest(word);
    let lettered_variant = tail.len() <= 2 && tail.chars().all(|c| c.is_ascii_alphabetic());
    if !matches!(letters, "slot" | "Slot") || digits.is_empty() || !lettered_variant {
        return None;
    }
    digits.parse().ok()
}

/// `f0a24a15`, `02054340`: the first group of a request uuid (8 hex digits, at least one a
/// decimal digit), which names a submission, never a problem.
pub(crate) fn is_hex_fragment(word: &str) -> bool {
    word.len() == 8
        && word.chars().all(|c| c.is_ascii_hexdigit())
        && word.chars().any(|c| c.is_ascii_digit())
}

/// `v2`, `v3`, `v1b`: a version of a submission, not a problem.
fn is_version(word: &str) -> bool {
    let (letters, digits, rest) = letters_digits_rest(word);
    letters == "v"
        && !digits.is_empty()
        && rest.len() <= 1
        && rest.chars().all(|c| c.is_ascii_lowercase())
}

/// `yolo`, `yolo6`, `w2`, `w4e`, `mega9`, `d1`: the users' batch labels in front of a name.
fn is_batch_label(word: &str) -> bool {
    match letters_digits_rest(word) {
        ("yolo" | "mega", _, "") => true,
        ("w" | "d", digits, suffix) => !digits.is_empty() && suffix.len() <= 1,
        _ => false,
    }
}

/// Whether a directory names what is below it: not a project folder, not a bare uuid or
/// temporary directory.
fn is_meaningful_dir(dir: &str) -> bool {
    let lower = dir.to_ascii_lowercase();
    if GENERIC_DIRS.contains(&lower.as_str()) || lower.starts_with("tmp") {
        return false;
    }
    if leading_uuid(dir).is_some() || is_hex_fragment(&lower) {
        return false;
    }
    lower
        .split(['_', '-'])
        .any(|w| !w.is_empty() && !DECORATIONS.contains(&w))
}

/// `2026-11-03`, `2026_11_03`, `20261103`, `2026-11`: a date (of a run) names no problem.
fn is_date(name: &str) -> bool {
    let groups: Vec<&str> = name.split(['-', '_', '.']).collect();
    let digits = |g: &str, n: usize| g.len() == n && g.chars().all(|c| c.is_ascii_digit());
    let year = |g: &str| digits(g, 4) && (g.starts_with("19") || g.starts_with("20"));
    match groups.as_slice() {
        [one] => digits(one, 8) && year(&one[..4]),
        [y, m] => year(y) && digits(m, 2),
        [y, m, d, ..] => year(y) && digits(m, 2) && digits(d, 2),
        _ => false,
    }
}

/// The uuid a directory name starts with: `38da55e5-43c9-4ddf-9536-cf52dc64c09d_aristotle`.
pub(crate) fn leading_uuid(dir: &str) -> Option<String> {
    let candidate = dir.get(..36)?;
    let groups: Vec<&str> = candidate.split('-').collect();
    let shaped = groups.iter().map(|g| g.len()).eq([8, 4, 4, 4, 12]);
    let hex = candidate.chars().all(|c| c == '-' || c.is_ascii_hexdigit());
    let ends = dir[36..].is_empty() || dir[36..].starts_with(['_', '-', '.']);
    (shaped && hex && ends).then(|| candidate.to_ascii_lowercase())
}

/// `erdos850`, `erdos_850`, `e850` → 850. The short form needs two digits or more, so that
/// `e8_lattice` is not read as Erdős problem 8.
fn erdos_number(words: &[String]) -> Option<String> {
    for (i, w) in words.iter().enumerate() {
        match letters_digits_rest(w) {
            ("erdos", digits, "") if !digits.is_empty() => return Some(digits.to_string()),
            ("e", digits, "") if digits.len() >= 2 => return Some(digits.to_string()),
            _ => {}
        }
        if w == "erdos" {
            if let Some(next) = words.get(i + 1) {
                if !next.is_empty() && next.chars().all(|c| c.is_ascii_digit()) {
                    return Some(next.clone());
                }
            }
        }
    }
    None
}

fn problem_id(words: &[&str]) -> Option<String> {
    let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
    if let Some(n) = erdos_number(&lower) {
        return Some(format!("erdos_{n}"));
    }
    let first = lower.first()?;
    // `tuza4` → `tuza_4`
    if let (letters, digits, "") = letters_digits_rest(first) {
        if !letters.is_empty() && !digits.is_empty() {
            return Some(format!("{letters}_{digits}"));
        }
    }
    if let Some(second) = lower.get(1) {
        let alphabetic_first = first.chars().all(|c| c.is_ascii_alphabetic());
        if alphabetic_first && second.chars().any(|c| c.is_ascii_digit()) {
            return Some(format!("{first}_{second}"));
        }
    }
    Some(lower.iter().take(3).cloned().collect::<Vec<_>>().join("_"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naming(name: &str) -> (Option<i64>, Option<String>) {
        let n = from_path(Path::new(name));
        (n.slot, n.problem_id)
    }

    #[test]
    fn slot_and_problem_from_result_names() {
        assert_eq!(
            naming("sub/slot614_erdos_850_prime_factor_triples_result.lean"),
            (Some(614), Some("erdos_850".into()))
        );
        assert_eq!(
            naming("slot611_ft_p3_cubic_character_contradiction_result.lean"),
            (Some(611), Some("ft_p3".into()))
        );
        assert_eq!(
            naming("slot17_tuza_nu4.lean"),
            (Some(17), Some("tuza_nu4".into()))
        );
        assert_eq!(
            naming("slot224c_different_edges.lean"),
            (Some(224), Some("different_edges".into()))
        );
        assert_eq!(
            naming("erdos128_finset_v3.lean"),
            (None, Some("erdos_128".into()))
        );
        assert_eq!(
            naming("erdos_1059_erdos_1059.lean"),
            (None, Some("erdos_1059".into()))
        );
        assert_eq!(
            naming("slot753_erdos373_hickerson_bounded_100_iter2.lean"),
            (Some(753), Some("erdos_373".into()))
        );
    }

    #[test]
    fn pipeline_files_are_marked_by_their_path() {
        let marked = |p: &str| from_path(Path::new(p)).pipeline;
        for path in [
            "x/slot614_erdos_850_result.lean",
            "x/homfly_v2_RESULT.lean",
            "x/sketch_aristotle.lean",
            "repo/submissions/algo_apsp_v3.lean",
            "repo/codex_results/v3/agoh_giuga.lean",
            "repo/results_v07/1d350235/output.lean",
            "r/e672_chabauty_extracted/e32a4620-7495-4654-b680-0996c098bc9a_aristotle/RequestProject/Main.lean",
            "r/slot69_80891b4c/output.lean",
        ] {
            assert!(marked(path), "{path}");
        }
        for path in [
            "Mathlib/Algebra/Group/Basic.lean",
            "book/Chapter3/Lemma2.lean",
            "pkg/Main.lean",
            "My Results (copy)/docs/Skeleton.lean",
            "aristotle-math-problems/archive/KnotDatabase12.lean",
        ] {
            assert!(!marked(path), "{path}");
        }
    }

    #[test]
    fn a_date_folder_names_no_problem() {
        assert!(is_date("2026-11-03") && is_date("20261103") && is_date("2026_11_03_run2"));
        assert!(!is_date("nu4_final") && !is_date("2026") && !is_date("e1003_subspace"));
        assert_eq!(naming("runs/2026-11-03/output.lean"), (None, None));
        assert_eq!(
            naming("runs/2026-11-03/slot12_erdos_5/output.lean"),
            (Some(12), Some("erdos_5".into()))
        );
    }

    #[test]
    fn an_output_names_its_submission() {
        assert_eq!(
            output_of(Path::new("r/homfly_v2_RESULT.lean")).as_deref(),
            Some("homfly_v2")
        );
        assert_eq!(
            output_of(Path::new("slot7_x_aristotle_result.lean")).as_deref(),
            Some("slot7_x")
        );
        assert_eq!(output_of(Path::new("homfly_v2.lean")), None);
        assert_eq!(output_of(Path::new("result.lean")), None);
    }

    #[test]
    fn versions_are_not_problems() {
        assert_eq!(
            naming("slot159_v2_M_weight_le_card.lean"),
            (Some(159), Some("m_weight_le".into()))
        );
        assert_eq!(
            naming("slot304_v1b_externals_constrained.lean"),
            (Some(304), Some("externals_constrained".into()))
        );
        assert_eq!(naming("slot487_v2_aristotle.lean"), (Some(487), None));
    }

    #[test]
    fn generic_files_are_named_by_their_directory() {
        let n = from_path(Path::new(
            "yolo_results/yolo_w2_e672_chabauty_extracted/\
             e32a4620-7495-4654-b680-0996c098bc9a_aristotle/RequestProject/Main.lean",
        ));
        assert_eq!(
            n,
            FileNaming {
                slot: None,
                problem_id: Some("erdos_672".into()),
                uuid: Some("e32a4620-7495-4654-b680-0996c098bc9a".into()),
                problem_from_dir: true,
                in_project: true,
                pipeline: true,
            }
        );
        assert_eq!(
            naming("yolo_results/yolo_slot1341_extracted/tmpeq_5_5st_aristotle/Main.lean"),
            (Some(1341), None)
        );
        assert_eq!(
            naming(
                "yolo_results/yolo_mega3_e364_joint_modulus_extracted/tmpq1_aristotle/Main.lean"
            ),
            (None, Some("erdos_364".into()))
        );
        assert_eq!(
            naming("proven/tuza/nu4/slot172_counterexample/output.lean"),
            (Some(172), Some("counterexample".into()))
        );
        assert_eq!(naming("Main.lean"), (None, None));
        assert_eq!(
            naming("slot50_e8_lattice.lean"),
            (Some(50), Some("e_8".into()))
        );
    }

    #[test]
    fn every_file_of_an_unpacked_project_is_named_by_its_directory() {
        let project = "yolo_results/yolo_d2_e940_golomb_pell_extracted/\
                       db335337-0000-4000-8000-000000000000_aristotle/RequestProject";
        for module in ["Main.lean", "PowerfulConsecutive.lean", "Definitions.lean"] {
            assert_eq!(
                naming(&format!("{project}/{module}")),
                (None, Some("erdos_940".into())),
                "{module}"
            );
        }
        // Where the directories name no problem, a module that names an Erdős problem does;
        // a module that names none gives none.
        let bare =
            "results_v07/7a7fbaf5/7a7fbaf5-f424-45d6-8139-eac2c6f08f49_aristotle/RequestProject";
        assert_eq!(
            naming(&format!("{bare}/Erdos828.lean")),
            (None, Some("erdos_828".into()))
        );
        assert_eq!(naming(&format!("{bare}/Definitions.lean")), (None, None));
        // A uuid's first group is no problem, in a directory or a file name.
        assert_eq!(
            naming("proven/tuza/nu4/slot72_f0a24a15/output.lean"),
            (Some(72), None)
        );
        assert!(is_hex_fragment("f0a24a15") && is_hex_fragment("02054340"));
        assert!(!is_hex_fragment("deadbeef"));
        assert_eq!(
            naming("results_v07/02054340/02054340-0366-4c4c-ad53-251e673e3a4b_aristotle/RequestProject/Basic2.lean"),
            (None, None)
        );
        assert!(!is_hex_fragment("erdos850"));
    }

    #[test]
    fn the_slot_comes_from_the_files_own_name_before_a_folders() {
        let project = "yolo_results/yolo_slot1341_extracted/\
                       cd13b3a0-a907-4899-a403-a80c36f64b5c_aristotle/RequestProject";
        assert_eq!(
            naming(&format!("{project}/slot1342_helper.lean")).0,
            Some(1342)
        );
        assert_eq!(naming(&format!("{project}/Main.lean")).0, Some(1341));
    }

    #[test]
    fn names_without_slot_or_problem() {
        assert_eq!(naming("slot667_result.lean"), (Some(667), None));
        assert_eq!(
            naming("leinster_cyclic_perfect_group.lean"),
            (None, Some("leinster_cyclic_perfect".into()))
        );
        assert_eq!(
            naming("slotted_thing.lean"),
            (None, Some("slotted_thing".into()))
        );
        assert_eq!(
            from_path(Path::new("slot1_a.lean")).uuid,
            None,
            "no directory, no uuid"
        );
    }

    #[test]
    fn uuids_and_labels() {
        assert_eq!(
            leading_uuid("38da55e5-43c9-4ddf-9536-cf52dc64c09d"),
            Some("38da55e5-43c9-4ddf-9536-cf52dc64c09d".into())
        );
        assert_eq!(leading_uuid("38da55e5-43c9-4ddf-9536-cf52dc64c09dx"), None);
        assert_eq!(leading_uuid("tmpeq_5_5st_aristotle"), None);
        assert!(is_batch_label("yolo") && is_batch_label("w4e") && is_batch_label("mega11"));
        assert!(!is_batch_label("erdos") && !is_batch_label("w") && !is_batch_label("dp"));
        assert!(is_version("v2") && is_version("v1b") && !is_version("vertex") && !is_version("v"));
    }
}
