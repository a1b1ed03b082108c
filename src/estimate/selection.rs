//! Which of a document's undecided samples a resolve searches, and
//! whether a first round of the exact encoding fits its limits.
//!
//! Three filters, in order: the samples wanted (every undecided one at
//! stronger limits; at a partial document's own limits only those it left
//! untried, the others having been searched at these very limits), then
//! the members of a subsample (`--subsample D`, [`in_subsample`]), then
//! one part's share (`--part K/N`: the K-th, then every N-th). The rules
//! that keep a double sampling true are here, so that a resolve run from
//! the command line or from a script obeys the same ones.

use std::collections::{HashMap, HashSet};

use super::{FirstPhase, FirstPhaseLayer, SubsampleSearched, Tally, UndecidedSample, in_subsample, is_one_in};

/// The samples a resolve searches ([`select`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    /// The subsample: one in `one_in` (1: every sample).
    pub one_in: u64,
    /// How many samples were wanted before the subsample: every undecided
    /// sample at stronger limits, a partial document's untried ones at
    /// its own.
    pub wanted: usize,
    /// The wanted samples in the subsample, in the document's order: the
    /// resolve's to search, on one machine or shared among parts.
    pub to_try: Vec<UndecidedSample>,
    /// The wanted samples outside the subsample, by (layer, index): left
    /// as the document has them, marked untried in the document written.
    pub outside: HashSet<(u32, u64)>,
    /// This part's share of `to_try` (all of it without a part).
    pub mine: Vec<UndecidedSample>,
}

/// Why a resolve's choice of samples is refused ([`select`]). The caller
/// words it (the CLI names its flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelectionRefusal {
    /// The document's own subsample record names no subsample: its `D`
    /// is not a power of two from 1 to [`super::MAX_ONE_IN`] (a damaged
    /// or hand-made document).
    BadRecord {
        /// The record's `D`.
        one_in: u64,
    },
    /// The document ends a double sampling (a resolve without a subsample
    /// searched beyond the subsample of an earlier one), so its undecided
    /// samples depend on which were in that subsample: they cannot be a
    /// first phase again.
    EndsDoubleSampling,
    /// The document's verdicts beyond its first phase are of the
    /// subsample of one in `held`, which the one asked for (a larger `D`)
    /// does not hold.
    NotHeld {
        /// The document's `D`.
        held: u64,
    },
    /// None of the `wanted` samples is in the subsample: nothing to
    /// search.
    NoneInSubsample {
        /// The samples wanted before the subsample.
        wanted: usize,
    },
}

/// The samples of `listed` (a document's undecided samples, seed `seed`)
/// that a resolve searches: all wanted ones where `stronger`, else the
/// untried ones; of those the subsample of one in `one_in` (1: every
/// sample); of those part `part = (K, N)`'s share. `before` is the
/// document's own subsample record, if it has one (a resolve limited to
/// a subsample wrote it, or one that ended such a chain, with one in 1):
/// a later subsample must hold that one (the same `D` or a smaller one),
/// or the verdicts beyond the first phase would not all be of one
/// subsample.
pub fn select(
    seed: u64,
    listed: &[UndecidedSample],
    stronger: bool,
    one_in: u64,
    before: Option<&SubsampleSearched>,
    part: Option<(u64, u64)>,
) -> Result<Selection, SelectionRefusal> {
    if let Some(b) = before {
        if !is_one_in(b.one_in) {
            return Err(SelectionRefusal::BadRecord { one_in: b.one_in });
        }
        if one_in > b.one_in {
            return Err(if b.one_in == 1 {
                SelectionRefusal::EndsDoubleSampling
            } else {
                SelectionRefusal::NotHeld { held: b.one_in }
            });
        }
    }
    let wanted: Vec<&UndecidedSample> = listed.iter().filter(|u| stronger || u.untried).collect();
    let (members, others): (Vec<&UndecidedSample>, Vec<&UndecidedSample>) =
        wanted.iter().copied().partition(|u| in_subsample(seed, u.discs, u.index, one_in));
    if members.is_empty() && !wanted.is_empty() {
        return Err(SelectionRefusal::NoneInSubsample { wanted: wanted.len() });
    }
    let to_try: Vec<UndecidedSample> = members.into_iter().cloned().collect();
    let mine = match part {
        Some((k, n)) => to_try.iter().skip((k - 1) as usize).step_by(n as usize).cloned().collect(),
        None => to_try.clone(),
    };
    Ok(Selection {
        one_in,
        wanted: wanted.len(),
        to_try,
        outside: others.iter().map(|u| (u.discs, u.index)).collect(),
        mine,
    })
}

impl Selection {
    /// The undecided samples of the document a resolve writes, in the
    /// order of `listed` (the document given): the samples it searched as
    /// it left them (`still`, those it did not decide; gone where it
    /// decided them), those outside the subsample marked untried (not
    /// searched at the limits the document records), the others as given
    /// (a partial document's samples tried at its own limits).
    pub fn undecided_after(&self, listed: &[UndecidedSample], still: Vec<UndecidedSample>) -> Vec<UndecidedSample> {
        let mut again: HashMap<(u32, u64), UndecidedSample> =
            still.into_iter().map(|u| ((u.discs, u.index), u)).collect();
        let searched: HashSet<(u32, u64)> = self.to_try.iter().map(|u| (u.discs, u.index)).collect();
        listed
            .iter()
            .filter_map(|u| {
                let key = (u.discs, u.index);
                if searched.contains(&key) {
                    again.remove(&key)
                } else if self.outside.contains(&key) {
                    Some(UndecidedSample { untried: true, ..u.clone() })
                } else {
                    Some(u.clone())
                }
            })
            .collect()
    }

    /// The subsample record of the document a resolve writes, given the
    /// document's own (`before`), its name (`from_id`) and its layers'
    /// tallies. A chain of subsample resolves records its subsample on,
    /// with the first phase of the first of them; a resolve that ends it
    /// (one in 1 after a subsample) records one in 1, so that its
    /// document, partial or whole, is never taken for a fresh first phase
    /// (its undecided samples depend on which were in the subsample).
    /// None for a resolve of every sample of a document that had no
    /// subsample.
    pub fn subsample_record(
        &self,
        before: Option<&SubsampleSearched>,
        from_id: Option<String>,
        layers: &[(u32, Tally)],
    ) -> Option<SubsampleSearched> {
        (self.one_in > 1 || before.is_some()).then(|| SubsampleSearched {
            one_in: self.one_in,
            outside: self.outside.len() as u64,
            first_phase: match before {
                Some(b) => b.first_phase.clone(),
                None => FirstPhase {
                    from_id,
                    layers: layers.iter().map(|&(discs, tally)| FirstPhaseLayer { discs, tally }).collect(),
                },
            },
        })
    }
}

/// Whether a first round of the exact encoding at `first` conflicts
/// (`--exact-first`) fits a resolve whose exact encoding has
/// `exact_conflicts`: more than none and fewer than the second round's,
/// or it would be no round of its own.
pub fn first_round_fits(first: u64, exact_conflicts: u64) -> bool {
    first > 0 && first < exact_conflicts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimate::FirstPhase;

    fn sample(discs: u32, index: u64, untried: bool) -> UndecidedSample {
        UndecidedSample { discs, index, position: String::new(), untried }
    }

    /// 400 samples (drawn, in the tests, with seed 5), every third one
    /// untried.
    fn listed() -> Vec<UndecidedSample> {
        (0..400).map(|i| sample(44 + (i % 20) as u32, i, i % 3 == 0)).collect()
    }

    fn record(one_in: u64) -> SubsampleSearched {
        SubsampleSearched { one_in, outside: 0, first_phase: FirstPhase { from_id: None, layers: Vec::new() } }
    }

    fn keys(v: &[UndecidedSample]) -> Vec<(u32, u64)> {
        v.iter().map(|u| (u.discs, u.index)).collect()
    }

    #[test]
    fn stronger_limits_want_every_sample_and_the_same_limits_only_the_untried() {
        let all = listed();
        let s = select(5, &all, true, 1, None, None).unwrap();
        assert_eq!((s.wanted, s.to_try.len(), s.outside.len()), (400, 400, 0));
        assert_eq!(s.mine, all);
        let s = select(5, &all, false, 1, None, None).unwrap();
        let untried: Vec<UndecidedSample> = all.iter().filter(|u| u.untried).cloned().collect();
        assert_eq!((s.wanted, s.to_try.clone()), (untried.len(), untried));
    }

    #[test]
    fn a_subsample_keeps_its_members_in_order_and_leaves_the_others_outside() {
        let all = listed();
        for stronger in [true, false] {
            let s = select(5, &all, stronger, 4, None, None).unwrap();
            let wanted: Vec<&UndecidedSample> = all.iter().filter(|u| stronger || u.untried).collect();
            let members: Vec<(u32, u64)> =
                wanted.iter().filter(|u| in_subsample(5, u.discs, u.index, 4)).map(|u| (u.discs, u.index)).collect();
            assert_eq!(keys(&s.to_try), members);
            assert_eq!(s.wanted, wanted.len());
            assert_eq!(s.outside.len() + s.to_try.len(), wanted.len());
            assert!(s.to_try.iter().all(|u| !s.outside.contains(&(u.discs, u.index))));
            // about a quarter, and neither none nor all
            assert!(s.to_try.len() > wanted.len() / 8 && s.to_try.len() < wanted.len() / 2, "{}", s.to_try.len());
        }
        // another seed draws another subsample
        let other = select(6, &all, true, 4, None, None).unwrap();
        assert_ne!(keys(&other.to_try), keys(&select(5, &all, true, 4, None, None).unwrap().to_try));
    }

    #[test]
    fn the_parts_share_the_samples_to_search_without_overlap() {
        let all = listed();
        let whole = select(5, &all, true, 2, None, None).unwrap();
        let mut joined: Vec<(u32, u64)> = Vec::new();
        for k in 1..=3 {
            let p = select(5, &all, true, 2, None, Some((k, 3))).unwrap();
            assert_eq!(p.to_try, whole.to_try, "every part sees the whole list");
            assert_eq!(
                keys(&p.mine),
                keys(&whole.to_try).into_iter().skip(k as usize - 1).step_by(3).collect::<Vec<_>>()
            );
            joined.extend(keys(&p.mine));
        }
        joined.sort_unstable();
        let mut expected = keys(&whole.to_try);
        expected.sort_unstable();
        assert_eq!(joined, expected);
    }

    #[test]
    fn a_later_subsample_must_hold_the_documents() {
        let all = listed();
        // the same D or a smaller one: taken
        for one_in in [1, 2, 4] {
            assert!(select(5, &all, true, one_in, Some(&record(4)), None).is_ok(), "{one_in}");
        }
        // a larger one: refused, and by which rule
        assert_eq!(select(5, &all, true, 8, Some(&record(4)), None), Err(SelectionRefusal::NotHeld { held: 4 }));
        assert_eq!(select(5, &all, true, 2, Some(&record(1)), None), Err(SelectionRefusal::EndsDoubleSampling));
        assert!(select(5, &all, true, 1, Some(&record(1)), None).is_ok());
        // a record of no subsample at all
        for bad in [0, 3, 1 << 21] {
            assert_eq!(
                select(5, &all, true, 1, Some(&record(bad)), None),
                Err(SelectionRefusal::BadRecord { one_in: bad })
            );
        }
        // both a record's rule and an empty subsample: the record's first
        let index = (0..).find(|&i| !in_subsample(5, 50, i, 1 << 20)).unwrap();
        let one = [sample(50, index, false)];
        assert_eq!(select(5, &one, true, 1 << 20, Some(&record(4)), None), Err(SelectionRefusal::NotHeld { held: 4 }));
    }

    #[test]
    fn a_subsample_with_none_of_the_samples_is_refused_and_an_empty_list_is_not() {
        // one sample, outside the subsample of one in 2^20 (a member is
        // one in a million)
        let index = (0..).find(|&i| !in_subsample(5, 50, i, 1 << 20)).unwrap();
        let one = [sample(50, index, false)];
        assert_eq!(select(5, &one, true, 1 << 20, None, None), Err(SelectionRefusal::NoneInSubsample { wanted: 1 }));
        // nothing wanted: nothing to refuse (a document with every sample
        // tried, at its own limits)
        let s = select(5, &one, false, 1 << 20, None, None).unwrap();
        assert_eq!((s.wanted, s.to_try.len(), s.mine.len()), (0, 0, 0));
    }

    #[test]
    fn the_list_written_keeps_the_order_drops_the_decided_and_marks_the_outside_untried() {
        let all = listed();
        let s = select(5, &all, true, 4, None, None).unwrap();
        // of the searched, every other one left undecided (its search
        // may have changed nothing else of it)
        // undecided and untried (a search cut at its time)
        let still: Vec<UndecidedSample> =
            s.to_try.iter().step_by(2).map(|u| UndecidedSample { untried: true, ..u.clone() }).collect();
        let after = s.undecided_after(&all, still.clone());
        let expected: Vec<UndecidedSample> = all
            .iter()
            .filter_map(|u| {
                let key = (u.discs, u.index);
                if s.to_try.iter().any(|t| (t.discs, t.index) == key) {
                    still.iter().find(|t| (t.discs, t.index) == key).cloned()
                } else {
                    Some(UndecidedSample { untried: true, ..u.clone() })
                }
            })
            .collect();
        assert_eq!(after, expected);
        assert_eq!(after.len(), all.len() - (s.to_try.len() - still.len()));
        // at a partial document's own limits, the samples tried before are
        // kept as they were (untried flags and all)
        let same = select(5, &all, false, 1, None, None).unwrap();
        let after = same.undecided_after(&all, Vec::new());
        assert_eq!(after, all.iter().filter(|u| !u.untried).cloned().collect::<Vec<_>>());
    }

    #[test]
    fn the_subsample_record_goes_on_along_a_chain_and_marks_its_end() {
        let all = listed();
        let tally = Tally { samples: 10, reachable: 3, undecided: 2, ..Tally::default() };
        let layers = [(50, tally)];
        // a resolve of every sample of a plain document: no record
        let whole = select(5, &all, true, 1, None, None).unwrap();
        assert_eq!(whole.subsample_record(None, Some("a".into()), &layers), None);
        // a first subsample: the document given is the first phase
        let first = select(5, &all, true, 4, None, None).unwrap();
        let record = first.subsample_record(None, Some("a".into()), &layers).unwrap();
        assert_eq!((record.one_in, record.outside), (4, first.outside.len() as u64));
        assert_eq!(record.first_phase.from_id.as_deref(), Some("a"));
        assert_eq!(record.first_phase.layers, vec![FirstPhaseLayer { discs: 50, tally }]);
        // a later one keeps that first phase, whatever the document's
        // own tallies now
        let later = select(5, &all, true, 2, Some(&record), None).unwrap();
        let other = [(50, Tally { samples: 10, reachable: 5, ..Tally::default() })];
        let next = later.subsample_record(Some(&record), Some("b".into()), &other).unwrap();
        assert_eq!((next.one_in, next.first_phase.clone()), (2, record.first_phase.clone()));
        // one that ends it records one in 1, the same first phase
        let end = select(5, &all, true, 1, Some(&record), None).unwrap();
        let ended = end.subsample_record(Some(&record), Some("c".into()), &other).unwrap();
        assert_eq!((ended.one_in, ended.outside, ended.first_phase), (1, 0, record.first_phase));
    }

    #[test]
    fn a_first_round_needs_fewer_conflicts_than_the_second_and_some() {
        assert!(first_round_fits(1, 2));
        assert!(first_round_fits(300_000, 20_000_000));
        assert!(!first_round_fits(0, 20_000_000));
        assert!(!first_round_fits(20_000_000, 20_000_000));
        assert!(!first_round_fits(20_000_001, 20_000_000));
    }
}
