//! The classic Score4 engine's search, answer for answer.

/// The deepest `-level` accepted. The board has 42 cells, so deeper levels
/// only change the depth printed and the win-distance shift.
pub const MAX_LEVEL: u32 = 99;
