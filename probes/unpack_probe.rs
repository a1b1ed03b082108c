//! Probe (issue 22): nanoseconds to unpack a dense key, alone and with its
//! images' keys, over the first N classes of a stored layer in their order
//! (as the last layer's count and an expansion read them). Usage:
//! unpack_probe 6|8 CENSUS_DIR N (a census whose last layer is stored).
//! On the 2-core AVX-512 EPYC, 20 M keys: 6x6 layer 17 13.3 -> 4.1 ns
//! a key with eight-digit groups, 8x8 ply 12 17.0 -> 10.8 ns. With one
//! `Unpacker` kept from key to key (the outer digits read again only where
//! they change): 8x8 ply 12 11.0 -> 6.2 ns, with images 21.8 -> 17.9 ns;
//! 6x6 layer 16 4.7 -> 3.4-3.9 ns, with images 17.6-18.4 -> 11.9-12.4 ns
//! (a fresh unpacking for each key, `unpack`, 8x8: 11.0 -> 13.1 ns).
use othello_census::board::{B6, B8};
use othello_census::key::dense::{Keyed, PackedKey, Unpacker, unpack, unpack_with_images};
use std::time::Instant;

fn run<G: Keyed>(dir: &str, n: usize) {
    let mut keys: Vec<G::Key> = Vec::new();
    othello_census::engine::layers::inspect::for_each_class(std::path::Path::new(dir), &mut |k| {
        if keys.len() < n {
            keys.push(G::Key::from_u128(k));
        }
    })
    .expect("a census with its last layer stored");
    for round in 0..5 {
        let t = Instant::now();
        let x = keys.iter().map(|&k| unpack::<G>(std::hint::black_box(k)).unwrap().black().0).fold(0, |a, b| a ^ b);
        let alone = t.elapsed().as_nanos() as f64 / keys.len() as f64;
        let t = Instant::now();
        let mut u = Unpacker::<G>::new();
        let z = keys.iter().map(|&k| u.unpack(std::hint::black_box(k)).unwrap().black().0).fold(0, |a, b| a ^ b);
        let kept = t.elapsed().as_nanos() as f64 / keys.len() as f64;
        assert_eq!(x, z);
        let t = Instant::now();
        let y = keys
            .iter()
            .map(|&k| {
                let (p, i) = unpack_with_images::<G>(G::key_tables(), std::hint::black_box(k)).unwrap();
                p.black().0 ^ i[3].to_u128() as u64
            })
            .fold(0, |a, b| a ^ b);
        let with = t.elapsed().as_nanos() as f64 / keys.len() as f64;
        let t = Instant::now();
        let mut u = Unpacker::<G>::new();
        let v = keys
            .iter()
            .map(|&k| {
                let (p, i) = u.unpack_with_images(std::hint::black_box(k)).unwrap();
                p.black().0 ^ i[3].to_u128() as u64
            })
            .fold(0, |a, b| a ^ b);
        let with_kept = t.elapsed().as_nanos() as f64 / keys.len() as f64;
        assert_eq!(y, v);
        println!(
            "round {round}: {} keys, unpack {alone:.2} ns, kept unpacker {kept:.2} ns, with images {with:.2} ns, kept {with_kept:.2} ns (check {x:x} {y:x})",
            keys.len()
        );
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: usize = a.get(3).and_then(|s| s.parse().ok()).expect("usage: unpack_probe 6|8 CENSUS_DIR N");
    if a[1] == "8" { run::<B8>(&a[2], n) } else { run::<B6>(&a[2], n) }
}
