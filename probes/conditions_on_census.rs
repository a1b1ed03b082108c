//! Every class of the stored last layer of a 6x6 census by discs passes the
//! backward search's cheap conditions (each reachable position must):
//! independent evidence for conditions that the 4x4 board, with no
//! squares off the edges and the centre, cannot test. Usage:
//! conditions_on_census DIR
use othello_census::board::B6;
use othello_census::key::Keyed;
use othello_census::key::dense::{PackedKey, unpack};
use othello_census::search::reachable::cheap_conditions;

fn main() {
    let dir = std::env::args().nth(1).expect("a census work directory");
    let started = std::time::Instant::now();
    let (mut classes, mut failed) = (0u64, 0u64);
    othello_census::engine::layers::inspect::for_each_class(std::path::Path::new(&dir), &mut |k| {
        let p = unpack::<B6>(<B6 as Keyed>::Key::from_u128(k)).expect("a 6x6 key");
        classes += 1;
        if !cheap_conditions::<B6>(p.black().0, p.white().0) {
            failed += 1;
            if failed <= 5 {
                eprintln!("fails the conditions:\n{p}");
            }
        }
    })
    .expect("the census layer");
    println!("{classes} classes, {failed} fail the conditions ({:.0} s)", started.elapsed().as_secs_f64());
    std::process::exit(i32::from(failed > 0));
}
