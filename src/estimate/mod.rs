//! Estimates of the reachable positions, terminal positions and classes of
//! the layers (disc counts) that cannot be enumerated, by sampling with an
//! exact reachability test (`crate::search::reachable`).
//!
//! **Candidates.** Layer `k` is sampled uniformly from a candidate set
//! whose size is exact: the four centre squares and `k - 4` of the other
//! `N² - 4` squares occupied, each disc black or white, either side to
//! move: `C(N² - 4, k - 4) · 2^k · 2` candidates. Every reachable position
//! of `k` discs is one of them (the start occupies the centre and nothing
//! is ever removed).
//!
//! **Estimators.** With `n` samples of which `r` are reachable and `u`
//! undecided (their search ran out of budget), each figure has two
//! points: undecided as unreachable, `C · r / n`, and as reachable,
//! `C · (r + u) / n`; the point given is their middle, which assumes no
//! share of the undecided samples reachable (unbiased for a fixed `n`
//! where `u = 0`; the rounds below adapt `n`, an O(1/n) effect). Terminal
//! positions likewise; classes weigh each reachable sample by `1 /
//! orbit`. The 95% interval of a layer runs from the lower end of `r / n`
//! to the upper end of `(r + u) / n` of Wilson's interval with continuity
//! correction ([`wilson_corrected`]), scaled by `C`; the
//! class interval is the position interval times the sampled classes per
//! position. The total over layers combines the layers' Wilson intervals
//! by MOVER ([`totals`]). docs/estimate.md gives the measured coverage.
//!
//! **Allocation.** Samples are drawn in rounds of doubling size; each
//! round's work is shared among the layers as Neyman's allocation does
//! (`C · σ / √cost` samples: `σ` from the proportion seen so far, the cost
//! the mean number of positions the search visited per sample), with a
//! floor of the work for every layer (`allocate`). All of it depends only
//! on the seed and the samples drawn, never on timing or threads: sample
//! `i` of layer `k` is drawn from its own generator seeded by `(seed, k,
//! i)`, and only a run's last round is ever cut short (to the samples
//! asked for, or to what a time limit leaves), so a run is reproduced
//! exactly by the same seed and sample count.

//!
//! Its rooms: [`draw`] the candidates, [`figures`] tallies and intervals,
//! [`allocation`] the rounds' shares, [`run`] a run, [`resolve`] samples
//! decided again, [`resolve_progress`] what a resolve has decided so far,
//! [`resolve_keeper`] that progress kept while a resolve runs,
//! [`run_progress`] what a run has drawn so far,
//! [`census_layer`] the layer searches stop at, [`memory`]
//! whether the searches fit, [`subsample`] the undecided samples a
//! resolve may be limited to, [`selection`] the samples a resolve
//! searches, [`double_sampling`] the positions they stand for.

mod allocation;
mod census_layer;
mod double_sampling;
mod draw;
mod exact_carry;
mod figures;
mod memory;
mod resolve;
mod resolve_keeper;
mod resolve_progress;
mod run;
mod run_progress;
mod selection;
mod subsample;

pub use census_layer::*;
pub use double_sampling::*;
pub use draw::*;
pub use exact_carry::*;
pub use figures::*;
pub use memory::*;
pub use resolve::*;
pub use resolve_keeper::*;
pub use resolve_progress::*;
pub use run::*;
pub use run_progress::*;
pub use selection::*;
pub use subsample::*;

use allocation::{allocate, costs, round_size, work_done};
use run::{FIRST_ROUND, one_sample};
