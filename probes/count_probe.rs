//! Probe (issue 22): the last layer's count alone (`expand::Counter`, one
//! thread) over the records of the first P parts of a stored 8x8 by-ply
//! layer, read into memory first. Usage: count_probe CENSUS_DIR P. On the
//! 2-core AVX-512 EPYC, A124005 ply 12, 16 parts (35,155,180 classes):
//! 50.3 ns a class with `Unpacker::unpack` called out of line, 45.5 ns
//! inlined.
use othello_census::board::B8;
use othello_census::census::LayerBy;
use othello_census::engine::layers::commit::read_state;
use othello_census::engine::layers::expand::Counter;
use othello_census::engine::layers::store::PartReader;
use othello_census::engine::layers::workdir::WorkDir;
use std::time::Instant;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let work = WorkDir::new(&a[1]);
    let parts: u32 = a[2].parse().unwrap();
    let m = read_state(&work).unwrap();
    let mut recs = Vec::new();
    for j in 0..parts {
        let path = work.part(m.layer, j);
        let mut r = PartReader::open(&path, &m.run.part(m.layer, j)).unwrap();
        let mut v = Vec::new();
        while let Some(x) = r.next_record().unwrap() {
            v.push(x);
        }
        recs.push((path, v));
    }
    let n: usize = recs.iter().map(|(_, v)| v.len()).sum();
    for _ in 0..3 {
        let t = Instant::now();
        let mut classes = 0;
        for (path, v) in &recs {
            let mut c = Counter::<B8>::new(LayerBy::Ply, path.clone());
            for &r in v {
                c.push(r).unwrap();
            }
            classes += c.finish().unwrap().counts.classes;
        }
        println!("{n} records, {classes} classes: {:.2} ns a record", t.elapsed().as_nanos() as f64 / n as f64);
    }
}
