//! Tests of the store: runs, the loser tree, parts, manifests, buckets.

use std::path::Path;

use super::kway::LoserTree;
use super::manifest::{MANIFEST_KIND_6, MANIFEST_KIND_7};
use super::*;
use crate::census::LayerCounts;
use crate::engine::layers::expansion::{Entering, Expansion};
use crate::formats::framed::FrameError;

/// A run from another rank is refused with what is wrong with it.
#[test]
fn a_defective_run_says_what_is_wrong() {
    // (key difference, multiplicity) pairs, one byte each
    assert_eq!(EncodedRun::parse(&[5, 1, 2, 1], 2).map(|r| r.records()), Ok(2));
    assert_eq!(EncodedRun::parse(&[5, 1], 2).unwrap_err().to_string(), "a run of 1 records that says 2");
    assert_eq!(EncodedRun::parse(&[5, 1, 0, 1], 2).unwrap_err(), RunDefect::RepeatedKey);
    assert_eq!(EncodedRun::parse(&[5, 0x80], 1).unwrap_err(), RunDefect::BadRecord);
}

proptest::proptest! {
    /// The loser tree yields every head of every run in key order (ties
    /// in any order), for any number of runs, empty ones included.
    #[test]
    fn the_loser_tree_merges_sorted_runs(runs in proptest::collection::vec(
        proptest::collection::btree_set(0u128..400, 0..40), 0..13)) {
        let runs: Vec<Vec<u128>> = runs.into_iter().map(|r| r.into_iter().collect()).collect();
        let mut want: Vec<u128> = runs.iter().flatten().copied().collect();
        want.sort_unstable();
        let heads: Vec<Option<Record>> = runs.iter().map(|r| r.first().map(|&k| (k, 1))).collect();
        let mut at = vec![1usize; runs.len()];
        let mut got = Vec::new();
        if !runs.is_empty() {
            let mut tree = LoserTree::new(&heads);
            while let Some((i, (k, _))) = tree.winner() {
                got.push(k);
                let next = runs[i].get(at[i]).map(|&k| (k, 1));
                at[i] += 1;
                tree.replace(i, next);
            }
        }
        proptest::prop_assert_eq!(got, want);
    }
}

fn read_all(path: &Path, id: &PartId) -> Result<Vec<Record>, FrameError> {
    let mut r = PartReader::open(path, id)?;
    let mut out = Vec::new();
    while let Some(rec) = r.next_record()? {
        out.push(rec);
    }
    Ok(out)
}

#[test]
fn parts_and_manifests_reject_every_damage() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("part.lyr");
    let id = PartId { size: 6, by: 0, layer: 9, partition: 2, partitions: 5 };
    let records: Vec<Record> = vec![(3, 1), (700, 2), (1 << 40, 5), (1 << 55, u64::MAX as u128 + 7)];
    let n = write_part(&p, &id, |emit| records.iter().try_for_each(|&r| emit(r))).unwrap();
    assert_eq!(n, 4);
    assert_eq!(read_all(&p, &id).unwrap(), records);
    let other = PartId { partition: 3, ..id };
    assert!(read_all(&p, &other).is_err(), "a part of another partition is refused");
    let good = std::fs::read(&p).unwrap();
    for i in 0..good.len() {
        let mut bad = good.clone();
        bad[i] ^= 0x20;
        std::fs::write(&p, &bad).unwrap();
        assert!(read_all(&p, &id).is_err(), "flip at byte {i} not detected");
    }
    for cut in 0..good.len() {
        std::fs::write(&p, &good[..cut]).unwrap();
        assert!(read_all(&p, &id).is_err(), "truncation at {cut} not detected");
    }

    let m = dir.path().join("run.manifest");
    let manifest = Manifest {
        software: "othello-census test".into(),
        run: RunConfig {
            size: 6,
            by: 1,
            limit: 12,
            partitions: 5,
            command: "c".into(),
            started_unix: 1,
            memory_limit: 2,
            store_last: false,
        },
        phase: Phase::Expanded,
        layer: 7,
        part_records: vec![1, 2, 3, 4, 5],
        stats: vec![LayerCounts {
            layer: 0,
            games: Some(crate::census::Games { games: 1, ..Default::default() }),
            ..Default::default()
        }],
        entering: Entering { games: 3, passes: 1 },
        elapsed_seconds: 0.5,
        slicing: Slicing {
            slices: 4,
            done: 2,
            counted: Expansion { mass: 1 << 70, emitted: 9, shapes: (3, 1), ..Default::default() },
        },
        settings: RunSettings { slices: Some(3), compact_always: true, disk_limit: Some(1 << 40) },
        out: Some("/o".into()),
    };
    // version 7, without out, is read with none
    let v7 = Manifest { out: None, ..manifest.clone() };
    let bytes = crate::formats::framed::encode(&v7);
    // (none encodes as one zero byte at the end)
    assert_eq!(bytes[bytes.len() - 1..], [0]);
    let bytes = &bytes[..bytes.len() - 1];
    crate::formats::atomic::atomic_write_with(&m, |w| {
        crate::formats::framed::write_preamble(w, &MANIFEST_KIND_7)?;
        crate::formats::framed::write_section(w, *b"HEAD", bytes.len() as u64, |h| h.put(bytes))?;
        crate::formats::framed::write_end(w)
    })
    .unwrap();
    assert_eq!(read_manifest(&m).unwrap(), v7);
    // version 6, without the settings, is read with their defaults
    let v6 = Manifest { settings: RunSettings::default(), out: None, ..manifest.clone() };
    let bytes = crate::formats::framed::encode(&v6);
    // (the defaults encode as three zero bytes, then none as one)
    assert_eq!(bytes[bytes.len() - 4..], [0, 0, 0, 0]);
    let bytes = &bytes[..bytes.len() - 4];
    crate::formats::atomic::atomic_write_with(&m, |w| {
        crate::formats::framed::write_preamble(w, &MANIFEST_KIND_6)?;
        crate::formats::framed::write_section(w, *b"HEAD", bytes.len() as u64, |h| h.put(bytes))?;
        crate::formats::framed::write_end(w)
    })
    .unwrap();
    assert_eq!(read_manifest(&m).unwrap(), v6);
    write_manifest(&m, &manifest).unwrap();
    assert_eq!(read_manifest(&m).unwrap(), manifest);
    let good = std::fs::read(&m).unwrap();
    for i in 0..good.len() {
        let mut bad = good.clone();
        bad[i] ^= 0x01;
        std::fs::write(&m, &bad).unwrap();
        assert!(read_manifest(&m).is_err(), "flip at byte {i} not detected");
    }
    for cut in 0..good.len() {
        std::fs::write(&m, &good[..cut]).unwrap();
        assert!(read_manifest(&m).is_err(), "truncation at {cut} not detected");
    }
}

/// A checkpointed bucket reopened at a recorded state: runs appended
/// after it are cut off; a staged compaction not recorded is dropped,
/// one recorded is installed; the records are the same either way.
#[test]
fn a_checkpointed_bucket_reopens_at_its_recorded_state() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("part-0000.bkt");
    let staged = dir.path().join("part-0000.gen1");
    let c = Some(Compaction { ratio: 0.1, min_bytes: 0 });
    let w = BucketWriter::create(&path, 8, c, true).unwrap();
    w.append(RunEncoder::of(&[(1, 1), (5, 2)]).run()).unwrap();
    w.append(RunEncoder::of(&[(1, 3), (7, 1)]).run()).unwrap();
    let before = w.sync().unwrap();
    assert_eq!(before.offsets.len(), 2, "a checkpointed bucket is not compacted while appended to");
    assert!(w.stage_compaction().unwrap().is_some() && staged.exists());
    drop(w);
    // a stop before the compaction was recorded, after another run
    let w = BucketWriter::reopen(&path, 8, c, before.clone()).unwrap();
    assert!(!staged.exists());
    w.append(RunEncoder::of(&[(9, 9)]).run()).unwrap();
    drop(w);
    let w = BucketWriter::reopen(&path, 8, c, before.clone()).unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().len(), before.len);
    let next = w.stage_compaction().unwrap().unwrap();
    drop(w);
    // a stop after it was recorded, before it was installed
    let w = BucketWriter::reopen(&path, 8, c, next.clone()).unwrap();
    assert!(!staged.exists());
    assert_eq!(w.finish().unwrap(), 1);
    let mut got = Vec::new();
    merge_bucket(&path, 1, 8, true, &mut |r| {
        got.push(r);
        Ok(())
    })
    .unwrap();
    assert_eq!(got, vec![(1, 4), (5, 2), (7, 1)]);
    // a bucket shorter than its record is refused
    let w = BucketWriter::create(&path, 8, c, true).unwrap();
    w.append(RunEncoder::of(&[(1, 1)]).run()).unwrap();
    let st = w.sync().unwrap();
    drop(w);
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(st.len - 1).unwrap();
    let e = BucketWriter::reopen(&path, 8, c, st).err().unwrap().to_string();
    assert!(e.contains("fewer than the"), "{e}");
}
