//! The fixed samples the solver benchmarks solve: the first positions of
//! each labelled set, so figures compare across commits.

use score4::fixture::{self, Labelled};

/// The project's own sets, newest games (easiest) first, with how many
/// positions of each a benchmark solves.
const SETS: [(&str, &str, usize); 4] = [
    (
        "ply33-40",
        include_str!("../fixtures/solver/ply33-40.txt"),
        20,
    ),
    (
        "ply23-32",
        include_str!("../fixtures/solver/ply23-32.txt"),
        20,
    ),
    (
        "ply15-22",
        include_str!("../fixtures/solver/ply15-22.txt"),
        10,
    ),
    ("ply9-14", include_str!("../fixtures/solver/ply9-14.txt"), 2),
];

/// Each set's name and its sample, at most `cap` positions of each.
pub fn samples(cap: usize) -> Vec<(&'static str, Vec<Labelled>)> {
    SETS.iter()
        .map(|&(name, text, n)| {
            let mut set = fixture::parse::<7, 6>(text).expect("fixtures parse");
            set.truncate(n.min(cap));
            (name, set)
        })
        .collect()
}
