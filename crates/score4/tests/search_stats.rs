//! A measuring solver's event counts add up. A file
//! of its own: the counters are process-wide, so no other test may solve
//! beside this one.
use score4::solver::stats::{self, DepthCounts, Event};
use score4::{Position, Solver};

#[test]
fn every_position_entered_ends_in_exactly_one_way() {
    let mut solver = Solver::<7, 6>::measuring_with_table_mb(4).unwrap();
    solver.drop_book();
    stats::take();
    let p: Position = "61354363717466".parse().unwrap();
    solver.solve(&p);
    let counts = stats::take();
    let sum = |e: Event| counts.iter().map(|d| d[e]).sum::<u64>();
    assert_eq!(sum(Event::Entered), solver.nodes());
    // Every event but entering and reading the table ends a position
    // (and the positions searched before a cut are a sum, not an event).
    let endings: Vec<Event> = Event::ALL
        .into_iter()
        .filter(|e| {
            ![
                Event::Entered,
                Event::TableRead,
                Event::TableHit,
                Event::BeforeCut,
            ]
            .contains(e)
        })
        .collect();
    for (moves, d) in counts.iter().enumerate() {
        let ended: u64 = endings.iter().map(|&e| d[e]).sum();
        assert_eq!(ended, d[Event::Entered], "{moves} moves: {d:?}");
        assert!(d[Event::TableHit] <= d[Event::TableRead]);
        assert!(d[Event::TableCut] <= d[Event::TableHit]);
        // The moves tried before a cut at one depth have disjoint
        // subtrees, all deeper: their positions cannot outnumber those
        // entered below that depth.
        let deeper: u64 = counts[moves + 1..].iter().map(|d| d[Event::Entered]).sum();
        assert!(d[Event::BeforeCut] <= deeper, "{moves} moves: {d:?}");
        if moves < 14 {
            assert_eq!(d, &DepthCounts::default(), "{moves} moves");
        }
    }
    for e in [
        Event::Forced,
        Event::FirstMoveCut,
        Event::TableHit,
        Event::AllMoves,
        Event::LaterMoveCut,
        Event::BeforeCut,
    ] {
        assert!(sum(e) > 0, "no {}", e.name());
    }
    // Taking empties the counters.
    assert!(stats::take().iter().all(|d| d == &DepthCounts::default()));
}
