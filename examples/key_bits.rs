//! Probe (issue 22): how the high bits of a stored layer's dense keys are
//! spread (a radix sort splits on them), against the same digits with the
//! innermost square most significant; every 16th class. Usage: key_bits
//! CENSUS_DIR (an 8x8 census with its last layer stored). On A124005
//! ply 12: 99.8% of the keys share their top 16 bits, against 68,312
//! buckets and 0.035% in the largest innermost first.
use othello_census::board::B8;
use othello_census::key::dense::unpack;
use othello_census::key::spiral_order;

fn main() {
    let dir = std::env::args().nth(1).expect("CENSUS_DIR");
    let order = spiral_order(8);
    let centre = othello_census::search::reachable::centre(8);
    // the outer squares in spiral order, innermost first
    let outer: Vec<u32> = order[..64].iter().map(|&s| s as u32).filter(|s| centre >> s & 1 == 0).collect();
    let (mut now, mut alt) =
        (std::collections::HashMap::<u128, u64>::new(), std::collections::HashMap::<u128, u64>::new());
    let mut n = 0u64;
    let mut lengths = [0u64; 129];
    othello_census::engine::layers::inspect::for_each_class(std::path::Path::new(&dir), &mut |k| {
        n += 1;
        if !n.is_multiple_of(16) {
            return;
        }
        lengths[(128 - k.leading_zeros()) as usize] += 1;
        *now.entry(k >> 85).or_default() += 1;
        let p = unpack::<B8>(k).unwrap();
        let (b, w) = (p.black().0, p.white().0);
        let mut a = 0u128;
        for &s in &outer {
            let d = if b >> s & 1 == 1 {
                1
            } else if w >> s & 1 == 1 {
                2
            } else {
                0
            };
            a = a * 3 + d;
        }
        *alt.entry(a >> (95 - 16)).or_default() += 1;
    })
    .unwrap();
    let sampled: u64 = lengths.iter().sum();
    println!("{n} classes, {sampled} sampled; key bit lengths:");
    for (l, c) in lengths.iter().enumerate().filter(|(_, c)| **c > 0) {
        println!("  {l:3} bits: {:.4}", *c as f64 / sampled as f64);
    }
    let top = |m: &std::collections::HashMap<u128, u64>| {
        let mut v: Vec<u64> = m.values().copied().collect();
        v.sort_unstable_by(|a, b| b.cmp(a));
        (m.len(), v[0] as f64 / sampled as f64, v.iter().take(16).sum::<u64>() as f64 / sampled as f64)
    };
    println!("top 16 bits now: {:?} (buckets, largest share, 16 largest)", top(&now));
    println!("top 16 bits innermost first: {:?}", top(&alt));
}
