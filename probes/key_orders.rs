//! Probe (issue 22): the bytes a sorted, delta-coded (LEB128 varint) layer
//! costs a class, and how a radix sort's top 16 bits spread, with the
//! outer squares' base-3 digits in five orders: the dense key's (outermost
//! square most significant), with the 4, 6 or 8 innermost squares moved
//! on top, and innermost first. Usage: key_orders CENSUS_DIR (an 8x8
//! census with its last layer stored). On A124005 ply 12 (140,571,718
//! classes sorted as one, no centre, side or multiplicity), in that order:
//! 1.401, 1.424, 1.505, 1.634 and 5.636 bytes a class; the largest of the
//! top-16-bit buckets holds 99%, 4%, 0.63%, 0.13% and 0.03% of the keys.
use othello_census::board::B8;
use othello_census::key::dense::unpack;
use othello_census::key::spiral_order;

fn varint_bytes(mut v: u128) -> u64 {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

fn main() {
    let dir = std::env::args().nth(1).expect("CENSUS_DIR");
    let order = spiral_order(8);
    let centre = othello_census::search::reachable::centre(8);
    let outer: Vec<u32> = order[..64].iter().map(|&s| s as u32).filter(|s| centre >> s & 1 == 0).collect();
    let mut digits: Vec<[u8; 60]> = Vec::new();
    othello_census::engine::layers::inspect::for_each_class(std::path::Path::new(&dir), &mut |k| {
        let p = unpack::<B8>(k).unwrap();
        let (b, w) = (p.black().0, p.white().0);
        let mut d = [0u8; 60];
        for (j, &s) in outer.iter().enumerate() {
            d[j] = if b >> s & 1 == 1 {
                1
            } else if w >> s & 1 == 1 {
                2
            } else {
                0
            };
        }
        digits.push(d);
    })
    .unwrap();
    // an order: the digit indices from most to least significant
    let current: Vec<usize> = (0..60).rev().collect();
    let inner_first: Vec<usize> = (0..60).collect();
    for h in [0usize, 4, 6, 8, 60] {
        let sig: Vec<usize> = if h == 0 {
            current.clone()
        } else if h == 60 {
            inner_first.clone()
        } else {
            (0..h).chain((h..60).rev()).collect()
        };
        let mut keys: Vec<u128> = digits.iter().map(|d| sig.iter().fold(0u128, |a, &j| a * 3 + d[j] as u128)).collect();
        keys.sort_unstable();
        let bytes: u64 = keys.windows(2).map(|w| varint_bytes(w[1] - w[0])).sum();
        let mut top = std::collections::HashMap::<u128, u64>::new();
        for k in &keys {
            *top.entry(k >> 79).or_default() += 1;
        }
        let largest = top.values().max().copied().unwrap_or(0);
        println!(
            "{} innermost squares on top: {:.3} bytes a class; top 16 bits: {} buckets, largest {:.4}",
            h,
            bytes as f64 / keys.len() as f64,
            top.len(),
            largest as f64 / keys.len() as f64
        );
    }
}
