//! Tests of the expansion: buffers, the pool, workers, the last spill.

use std::sync::Mutex;

use super::buffers::{BufferSet, Children};
use super::job::spill_together;
use super::worker::Worker;
use super::*;
use crate::board::cpu::{Avx2, CpuLevel};
use crate::board::{B4, B6, B8, Position};
use crate::census::LayerBy;
use crate::engine::layers::LayersError;
use crate::engine::layers::shuffle::ShuffleSink;
use crate::engine::layers::store::EncodedRun;
use crate::engine::layers::store::{RunEncoder, from_stored, to_stored};
use crate::key::canonical_key;
use crate::key::dense::side_weight;
use crate::key::dense::unpack;
use crate::key::{Keyed, PackedKey};

/// The pool frees the sets of another layout before it allocates
/// (never two sets a worker), and allocates afresh after a release,
/// once the release is done (reuse: `pooled_buffers_are_reused_...`).
#[test]
fn the_buffer_pool_evicts_and_releases() {
    let pool = BufferPool::<u64>::default();
    let held = |p: &BufferPool<u64>| p.held.lock().unwrap().len();
    let (a, b) = ([10usize, 20], [30usize, 0]);
    let caps = |set: &BufferSet<u64>| set.0.iter().map(|c| c.items.capacity()).collect::<Vec<_>>();
    pool.give(pool.take(&a));
    assert_eq!(held(&pool), 1);
    let other = pool.take(&b);
    assert_eq!(caps(&other), b);
    assert_eq!(held(&pool), 0, "the set of the other layout is freed first");
    pool.give(other);
    pool.release();
    assert_eq!(held(&pool), 0);
    let fresh = pool.take(&b);
    assert_eq!(caps(&fresh), b);
    assert!(pool.freeing.lock().unwrap().is_none(), "the release was waited for");
}

proptest::proptest! {
    /// Packed children sum to what a map of the pairs sums to, with
    /// multiplicities on both sides of the payload's limit (those of
    /// 512 and more wait as pairs), in items of either width.
    #[test]
    fn packed_children_sum_like_a_map(pairs in proptest::collection::vec((0u128..50, 1u128..600), 0..256)) {
        fn check<K: PackedKey>(pairs: &[(u128, u128)]) -> Vec<Record> {
            let payload = 9;
            let mut c = Children::<K>::with_capacity(pairs.len());
            for &(k, m) in pairs {
                c.push(k, m, payload);
            }
            let mut out = RunEncoder::default();
            c.drain_sorted(payload, &mut out);
            assert!(c.is_empty());
            out.run().to_records()
        }
        let mut want = std::collections::BTreeMap::new();
        for &(k, m) in &pairs {
            *want.entry(k).or_insert(0u128) += m;
        }
        let want: Vec<Record> = want.into_iter().collect();
        proptest::prop_assert_eq!(&check::<u64>(&pairs), &want);
        proptest::prop_assert_eq!(&check::<u128>(&pairs), &want);
    }
}

#[test]
fn payloads_leave_room_for_every_stored_key() {
    // 8x8: keys of 101 bits in u128, 27 free; 6x6: 56 in u64, 8 free;
    // 4x4: 25 in u32, 7 free
    fn check<G: Keyed>(free: u32) {
        let p = Children::<G::Key>::payload_bits(side_weight(G::N));
        assert_eq!(p, free);
        let largest = 2 * side_weight(G::N) - 1;
        assert!((largest << p | ((1 << p) - 1)) >> p == largest);
        assert!((largest << p) >> (8 * <G::Key as PackedKey>::BYTES as u32 - 1) == 1, "no bit to spare above");
    }
    check::<B8>(27);
    check::<B6>(8);
    check::<B4>(7);
}

/// A buffer is full when its pairs are, and spills: a worker whose
/// children all have large multiplicities sends the same records as
/// one whose children fit the items.
#[test]
fn large_multiplicities_spill_and_count_alike() {
    let records = layer::<B6>(6);
    let heavy: Vec<Record> = records.iter().map(|&(k, _)| (k, 12 << 20)).collect();
    for (input, m) in [(&records, 12u128), (&heavy, 12 << 20)] {
        let sink = Collect(Mutex::new(Vec::new()));
        let mut w = Worker::<B6>::new(LayerBy::Ply, true, 1 << 10, &sink);
        w.chunk(input, 0, std::path::Path::new("test")).unwrap();
        w.spill().unwrap();
        let mut sums = std::collections::BTreeMap::new();
        for (j, run) in sink.0.into_inner().unwrap() {
            for (k, n) in run {
                *sums.entry((j, k)).or_insert(0u128) += n;
            }
        }
        let scaled: Vec<_> = sums.into_iter().map(|(jk, n)| (jk, n / m)).collect();
        let sink = Collect(Mutex::new(Vec::new()));
        let mut w = Worker::<B6>::new(LayerBy::Ply, true, 1 << 20, &sink);
        w.chunk(&records, 0, std::path::Path::new("test")).unwrap();
        w.spill().unwrap();
        let mut once = std::collections::BTreeMap::new();
        for (j, run) in sink.0.into_inner().unwrap() {
            for (k, n) in run {
                *once.entry((j, k)).or_insert(0u128) += n;
            }
        }
        let once: Vec<_> = once.into_iter().map(|(jk, n)| (jk, n / 12)).collect();
        assert_eq!(scaled, once);
    }
}

/// Collects what a worker sends, partition by partition.
struct Collect(Mutex<Vec<(u32, Vec<Record>)>>);

impl ShuffleSink for Collect {
    fn partitions(&self) -> u32 {
        3
    }
    fn send(&self, partition: u32, run: EncodedRun<'_>) -> Result<(), LayersError> {
        self.0.lock().unwrap().push((partition, run.to_records()));
        Ok(())
    }
}

/// The classes of the first plies as stored records, in key order.
fn layer<G: Keyed>(plies: u32) -> Vec<Record> {
    let mut ps = vec![Position::<G>::start()];
    let mut all = Vec::new();
    for _ in 0..plies {
        ps = ps.iter().flat_map(|p| p.children()).collect();
        all.extend(ps.iter().map(|p| to_stored(canonical_key(p).to_u128(), side_weight(G::N))));
    }
    all.sort_unstable();
    all.dedup();
    all.into_iter().map(|s| (s, 12)).collect()
}

/// The workers' last children spilled by several threads together are
/// the runs each worker would have sent alone (in another order), from
/// buffers that spilled before (small ones) and that did not.
#[test]
fn spilling_together_sends_what_each_worker_would() {
    let records = layer::<B6>(7);
    let halves = records.split_at(records.len() / 2);
    for cap in [1 << 8, 1 << 20] {
        let alone = Collect(Mutex::new(Vec::new()));
        let together = Collect(Mutex::new(Vec::new()));
        let mut sets = Vec::new();
        for part in [halves.0, halves.1] {
            let mut w = Worker::<B6>::new(LayerBy::Discs, true, cap, &alone);
            w.chunk(part, 0, std::path::Path::new("test")).unwrap();
            w.spill().unwrap();
            let mut w = Worker::<B6>::new(LayerBy::Discs, true, cap, &together);
            w.chunk(part, 0, std::path::Path::new("test")).unwrap();
            sets.push(w.into_results().1);
        }
        spill_together::<B6>(&mut sets, &together, 3).unwrap();
        assert!(sets.iter().all(|(split, _)| split.iter().all(|c| c.is_empty())), "every buffer spilled");
        let (mut a, mut t) = (alone.0.into_inner().unwrap(), together.0.into_inner().unwrap());
        assert!(!a.is_empty());
        a.sort();
        t.sort();
        assert_eq!(a, t);
    }
}

/// Rounds through one pool: the second round's worker takes the first's
/// buffers (the same allocation), and each round counts and sends what
/// a worker with buffers of its own does.
#[test]
fn pooled_buffers_are_reused_and_count_alike() {
    let records = layer::<B6>(6);
    let (first, second) = records.split_at(records.len() / 2);
    let pool = BufferPool::<u64>::default();
    let mut reused = Vec::new();
    for round in [first, second] {
        let run = |pool: Option<&BufferPool<u64>>| {
            let sink = Collect(Mutex::new(Vec::new()));
            let fresh = BufferPool::default();
            let mut w = Worker::<B6>::with_pool(LayerBy::Ply, true, 1 << 12, &sink, pool.unwrap_or(&fresh));
            let at = w.split.iter().map(|c| c.items.as_ptr() as usize).collect::<Vec<_>>();
            w.chunk(round, 0, std::path::Path::new("test")).unwrap();
            let (found, mut set) = w.into_results();
            spill_together::<B6>(std::slice::from_mut(&mut set), &sink, 1).unwrap();
            pool.unwrap_or(&fresh).give(set);
            (format!("{found:?}"), sink.0.into_inner().unwrap(), at)
        };
        let (found, sent, at) = run(Some(&pool));
        let own = run(None);
        assert!(!sent.is_empty());
        assert_eq!((&found, &sent), (&own.0, &own.1));
        reused.push(at);
    }
    assert_eq!(reused[0], reused[1], "the second round reuses the first round's buffers");
    assert_eq!(pool.held.lock().unwrap().len(), 1);
}

/// The portable copy and the AVX2 copy (where the CPU has it) count the
/// same and send the same children, by discs and by ply; both equal
/// children packed one by one.
#[test]
fn both_copies_count_and_send_the_same() {
    fn check<G: Keyed>(plies: u32) {
        let records = layer::<G>(plies);
        for by in [LayerBy::Discs, LayerBy::Ply] {
            let run = |avx2: Option<Avx2>| {
                let sink = Collect(Mutex::new(Vec::new()));
                let mut w = Worker::<G>::new(by, true, 1 << 20, &sink);
                w.avx2 = avx2;
                w.chunk(&records, 0, std::path::Path::new("test")).unwrap();
                w.spill().unwrap();
                let found = format!("{:?}", w.found);
                (found, sink.0.into_inner().unwrap())
            };
            let portable = run(None);
            // children packed one by one, with the worker's multiplicity
            let mut want: Vec<u128> = Vec::new();
            for &(s, _) in &records {
                let p = unpack::<G>(G::Key::from_u128(from_stored(s, side_weight(G::N)))).unwrap();
                for c in p.children() {
                    want.push(to_stored(canonical_key(&c).to_u128(), side_weight(G::N)));
                    if by == LayerBy::Discs && c.legal_moves().is_empty() && c.opponent_can_move() {
                        want.push(to_stored(canonical_key(&c.pass()).to_u128(), side_weight(G::N)));
                    }
                    if by == LayerBy::Discs && p.legal_moves().is_empty() {
                        want.pop(); // a pass stays in its layer by discs
                    }
                }
            }
            want.sort_unstable();
            want.dedup();
            let mut sent: Vec<u128> = portable.1.iter().flat_map(|(_, r)| r.iter().map(|x| x.0)).collect();
            sent.sort_unstable();
            assert_eq!(sent, want, "{} by {by:?}", G::N);
            for level in CpuLevel::for_tests("the expansion test") {
                if let Some(avx2) = level.avx2() {
                    assert_eq!(run(Some(avx2)), portable, "{} by {by:?}, {level}", G::N);
                }
            }
        }
    }
    check::<B4>(9);
    check::<B6>(6);
    check::<B8>(6);
}
