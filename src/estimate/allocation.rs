//! How each round's samples are shared among the layers: Neyman's
//! allocation with costs, a floor for every layer, rounds that double.

use super::*;

/// The cost of a sample beyond the positions its search visits (drawing
/// it, the cheap conditions), in positions: about 1.5 µs against 0.3 to
/// 0.5 µs a position on 6x6 (layer 21, where most samples end at the
/// conditions).
pub(super) const SAMPLE_COST: f64 = 4.0;

/// The share of a round's work spread evenly over its layers, whatever
/// Neyman's allocation says: every layer keeps being sampled.
pub(super) const FLOOR_SHARE: f64 = 0.125;

/// The mean cost of a sample of each layer so far, in positions: those
/// its search visited plus [`SAMPLE_COST`] (with one more, free sample
/// counted, so a layer not yet sampled costs `SAMPLE_COST`).
pub(super) fn costs(tallies: &[Tally]) -> Vec<f64> {
    tallies
        .iter()
        .map(|t| {
            let n = t.samples as f64;
            (t.nodes as f64 + SAMPLE_COST * (n + 1.0)) / (n + 1.0)
        })
        .collect()
}

/// The work of the samples drawn so far, in the units of [`costs`].
pub(super) fn work_done(tallies: &[Tally]) -> f64 {
    tallies.iter().map(|t| t.nodes as f64 + SAMPLE_COST * t.samples as f64).sum()
}

/// Shares `round` samples among the layers by Neyman's allocation (with
/// costs), every layer getting at least a floor of the round's work.
///
/// The work of layer `i` is its samples times its mean cost `c_i`
/// (positions searched per sample, plus [`SAMPLE_COST`]). Neyman gives it
/// `n_i ∝ C_i σ_i / √c_i` samples (`σ_i` that of `figure`'s proportion), so the share `w_i ∝ n_i c_i` of the
/// work; the round gives it `FLOOR_SHARE / k + (1 - FLOOR_SHARE) w_i` of
/// its work, so a layer whose searches are long takes no more than its
/// variance earns (a floor counted in samples gave the four costliest
/// 6x6 layers three quarters of the work).
pub(super) fn allocate(cands: &[u128], tallies: &[Tally], round: u64, figure: Figure) -> Vec<u64> {
    let k = cands.len();
    let costs = costs(tallies);
    let neyman: Vec<f64> = cands
        .iter()
        .zip(tallies)
        .zip(&costs)
        .map(|((&c, t), &cost)| {
            let n = t.samples as f64;
            let hits = match figure {
                Figure::TerminalPositions => t.terminal + t.undecided_terminal,
                _ => t.reachable + t.undecided,
            };
            let p = (hits as f64 + 1.0) / (n + 2.0);
            c as f64 * (p * (1.0 - p)).sqrt() / cost.sqrt()
        })
        .collect();
    let neyman_work: f64 = neyman.iter().zip(&costs).map(|(n, c)| n * c).sum();
    // samples per layer, up to a common factor: its share of the work
    // over its cost
    let weights: Vec<f64> = neyman
        .iter()
        .zip(&costs)
        .map(|(&n, &c)| {
            let work = if neyman_work > 0.0 { n * c / neyman_work } else { 1.0 / k as f64 };
            (FLOOR_SHARE / k as f64 + (1.0 - FLOOR_SHARE) * work) / c
        })
        .collect();
    let sum: f64 = weights.iter().sum();
    // never more than `round` in all; one each first when the round has
    // that many (the first always has: it is at least one a layer, or all
    // the samples), else a layer may sit a short round out
    let one = u64::from(round >= k as u64);
    let spare = round - one * k as u64;
    let mut out: Vec<u64> = weights.iter().map(|w| one + (spare as f64 * w / sum).floor() as u64).collect();
    // what rounding left goes to the first layers
    let mut left = round.saturating_sub(out.iter().sum());
    for o in out.iter_mut() {
        if left == 0 {
            break;
        }
        *o += 1;
        left -= 1;
    }
    out
}

/// The size of the round after `done` samples: `FIRST_ROUND` (or one a
/// layer, when there are more layers), then as
/// many as all rounds before (doubling). Only the last round of a run is
/// ever smaller (cut to the samples asked for, or to the time left), so a
/// run of `n` samples, whether `n` was asked for or is what a time limit
/// allowed, draws the same rounds: `--samples n` reproduces it.
pub(super) fn round_size(done: u64, layers: usize) -> u64 {
    done.max(FIRST_ROUND.max(layers as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::B4;

    #[test]
    fn allocation_adds_up() {
        let t = [Tally::default(); 3];
        let a = allocate(&[10, 1000, 100], &t, 1000, Figure::Positions);
        assert_eq!(a.iter().sum::<u64>(), 1000);
        for round in [1, 2, 3, 5, 11] {
            assert_eq!(
                allocate(&[10, 1000, 100, 5, 7], &[Tally::default(); 5], round, Figure::Positions).iter().sum::<u64>(),
                round
            );
        }
        assert!(a[1] > a[2] && a[2] > a[0]);
        let _ = estimate::<B4>;
    }

    /// The work of each layer (samples times positions searched per
    /// sample) follows its variance, with a floor of the round's work: a
    /// costly layer that adds little variance gets little more than the
    /// floor, a cheap layer that adds much gets most of the work.
    #[test]
    fn allocation_shares_the_work_not_the_samples() {
        let tally = |samples: u64, reachable: u64, nodes: u64| Tally { samples, reachable, nodes, ..Tally::default() };
        // layer 0: many candidates, cheap searches; layer 1: few
        // candidates, searches 10^4 times longer; layer 2: like 0 with
        // searches 100 times longer
        let t = [tally(10_000, 100, 1_000_000), tally(10_000, 1_000, 10_000_000_000), tally(10_000, 100, 100_000_000)];
        let cands = [1u128 << 60, 1 << 40, 1 << 60];
        // large enough that whole samples do not matter
        let round = 1 << 28;
        let a = allocate(&cands, &t, round, Figure::Positions);
        assert_eq!(a.iter().sum::<u64>(), round);
        let cost = |i: usize| (t[i].nodes as f64 + SAMPLE_COST * (t[i].samples + 1) as f64) / (t[i].samples + 1) as f64;
        let work: Vec<f64> = (0..3).map(|i| a[i] as f64 * cost(i)).collect();
        let all: f64 = work.iter().sum();
        // layer 1 adds ~10^-5 of the others' variance: the floor, no more
        let floor = FLOOR_SHARE / 3.0;
        assert!(work[1] / all > floor && work[1] / all < floor * 1.01, "{}", work[1] / all);
        // Neyman: samples in proportion to C σ / √cost, so layers 0 and 2
        // (alike but for the cost) share the work beyond the floor as the
        // square roots of their costs (about ten to one)
        let beyond = |i: usize| work[i] / all - floor;
        let expected = (cost(2) / cost(0)).sqrt();
        assert!((beyond(2) / beyond(0) / expected - 1.0).abs() < 1e-3, "{} {expected}", beyond(2) / beyond(0));
    }
}
