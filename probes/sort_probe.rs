//! Probe (issue 22): what a narrower child item would save in the
//! expansion's sort, and whether the multiplicities would fit beside a
//! 64-bit key. Usage: sort_probe CENSUS_DIR [N [DUMP]]: N items (default
//! 1,400,000, about one worker buffer of A124005 a(12) at `--memory 4GiB`)
//! made as the engine makes 8x8 child items (stored key << 27 |
//! multiplicity) from keys drawn from the stored last layer, sorted as
//! u128 (the engine's `sort_unstable`), as (u64 key, u64) pairs by key, and
//! as u64; then the share of the layer's classes whose multiplicity fits
//! the bits that an enumerative 64-bit code of the next ply would leave
//! (occupancy rank among C(60, p) sets, the colours of the p + 4 discs, the
//! side to move). DUMP: a file to write the items to (16 bytes each, little
//! endian), for trying other sorters on them.
use othello_census::engine::layers::commit::read_state;
use othello_census::engine::layers::store::{PartReader, to_stored};
use othello_census::engine::layers::workdir::WorkDir;
use std::time::Instant;

fn xorshift(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

fn ns(t: std::time::Duration, n: usize) -> f64 {
    t.as_nanos() as f64 / n as f64
}

/// log2 of C(n, k).
fn log2_choose(n: u32, k: u32) -> f64 {
    (0..k).map(|i| ((n - i) as f64).log2() - ((i + 1) as f64).log2()).sum()
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let work = WorkDir::new(&a[1]);
    let n: usize = a.get(2).map(|s| s.parse().unwrap()).unwrap_or(1_400_000);
    let m = read_state(&work).unwrap();
    let side = othello_census::key::dense::side_weight(8);
    // the children of this layer are at ply `layer + 1`: the bits an
    // enumerative code of that ply needs, and those it leaves
    let p = m.layer + 1;
    let bits = log2_choose(60, p) + (p + 4) as f64 + 1.0;
    let free = (64.0 - bits).floor().max(0.0) as u32;
    let mut keys = Vec::new();
    let (mut seen, mut fits) = (0u64, 0u64);
    for j in 0..m.run.partitions {
        let mut r = PartReader::open(&work.part(m.layer, j), &m.run.part(m.layer, j)).unwrap();
        while let Some((k, mult)) = r.next_record().unwrap() {
            seen += 1;
            fits += u64::from(mult >> free == 0);
            if seen.is_multiple_of(40) && keys.len() < 3 * n {
                keys.push(to_stored(k, side));
            }
        }
    }
    let mut s = 12345u64;
    let items: Vec<u128> = (0..n)
        .map(|_| keys[(xorshift(&mut s) % keys.len() as u64) as usize] << 27 | (1 + xorshift(&mut s) % 7) as u128)
        .collect();
    if let Some(f) = a.get(3) {
        std::fs::write(f, items.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
    }
    let zero_high = items.iter().filter(|&&x| x >> 64 == 0).count();
    let mut highs: Vec<u64> = items.iter().map(|&x| (x >> 64) as u64).collect();
    highs.sort_unstable();
    highs.dedup();
    println!(
        "layer {}: {} classes; {n} items, {:.1}% with a zero high word, {} distinct high words",
        m.layer,
        seen,
        100.0 * zero_high as f64 / n as f64,
        highs.len()
    );
    for round in 0..3 {
        let mut v = items.clone();
        let t = Instant::now();
        v.sort_unstable();
        let wide = t.elapsed();
        let mut pairs: Vec<(u64, u64)> = items.iter().map(|&x| ((x >> 40) as u64, x as u64 & 0xff)).collect();
        let t = Instant::now();
        pairs.sort_unstable_by_key(|p| p.0);
        let pair = t.elapsed();
        let mut narrow: Vec<u64> = items.iter().map(|&x| (x >> 40) as u64 ^ (x as u64 & 0xff)).collect();
        let t = Instant::now();
        narrow.sort_unstable();
        let small = t.elapsed();
        println!(
            "round {round}: u128 items {:.1} ns an item, (u64, u64) by key {:.1} ns, u64 {:.1} ns",
            ns(wide, n),
            ns(pair, n),
            ns(small, n)
        );
    }
    println!(
        "ply {p}: an enumerative code needs {bits:.1} bits, leaving {free} for a multiplicity; {:.1}% of this layer's classes (the parents) fit",
        100.0 * fits as f64 / seen as f64
    );
}
