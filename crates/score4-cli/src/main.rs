//! The `score4` command.

fn main() {
    let p = score4::Position::<7, 6>::new();
    println!("{p}");
}
