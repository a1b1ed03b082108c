//! Whether the searches of an estimate fit in memory, before it starts.

use crate::key::Keyed;
use crate::search::reachable::{Frontier, Search};

/// The most memory an estimate's frontier of `frontier_discs` and its
/// `threads` searches of `budget` positions hold at once (without a
/// census layer), from [`Frontier::bytes_needed`] and
/// [`Search::peak_bytes`].
pub fn search_memory<G: Keyed>(frontier_discs: u32, budget: u64, threads: usize) -> u64 {
    // saturating: a sum that wrapped let an impossible budget through
    (Frontier::<G>::bytes_needed(frontier_discs) as u64)
        .saturating_add(Search::<G>::peak_bytes(budget).saturating_mul(threads as u64))
}

/// Searches that would hold more memory than is free: each of `threads`
/// searches up to `one` bytes, `need` with the frontier, beside
/// `available`; `fits` is the largest budget whose searches fit on as
/// many threads.
#[derive(Debug, thiserror::Error)]
#[error(
    "a budget of {budget} positions on {threads} thread(s): each search may hold up to {} (a class for each \
     position it refutes), {} with the frontier, more than this machine has free ({}); at most {fits} positions \
     fit on {threads} thread(s)",
    crate::text::human_bytes(*one as f64),
    crate::text::human_bytes(*need as f64),
    crate::text::human_bytes(*available as f64)
)]
pub struct SearchesTooLarge {
    pub budget: u64,
    pub threads: usize,
    pub one: u64,
    pub need: u64,
    pub available: u64,
    pub fits: u64,
}

/// The memory an estimate's frontier and its `threads` searches of
/// `budget` positions hold at once ([`search_memory`]), when it fits in
/// four fifths of `available` bytes (none: unknown, taken to fit).
pub fn searches_fit<G: Keyed>(
    frontier_discs: u32,
    budget: u64,
    threads: usize,
    available: Option<u64>,
) -> Result<u64, SearchesTooLarge> {
    let need = search_memory::<G>(frontier_discs, budget, threads);
    let Some(available) = available else { return Ok(need) };
    let allowed = available / 5 * 4;
    if need <= allowed {
        return Ok(need);
    }
    let one = Search::<G>::peak_bytes(budget);
    let per_thread =
        allowed.saturating_sub(need.saturating_sub(one.saturating_mul(threads as u64))) / threads.max(1) as u64;
    // a search's memory steps up where its table doubles, at powers of two
    let mut fits = 1u64;
    while Search::<G>::peak_bytes(fits * 2) <= per_thread {
        fits *= 2;
    }
    Err(SearchesTooLarge { budget, threads, one, need, available, fits })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::B6;

    /// Searches that fit are given their memory; those that do not are
    /// refused with the largest budget that fits: its searches fit, and
    /// those of twice it do not.
    #[test]
    fn searches_fit_or_name_the_largest_budget_that_does() {
        let avail = 12u64 << 30;
        let allowed = avail / 5 * 4;
        // memory unknown: taken to fit
        assert_eq!(searches_fit::<B6>(14, 1 << 40, 2, None).ok(), Some(search_memory::<B6>(14, 1 << 40, 2)));
        for threads in [1, 2, 3] {
            assert_eq!(
                searches_fit::<B6>(14, 1 << 20, threads, Some(avail)).ok(),
                Some(search_memory::<B6>(14, 1 << 20, threads))
            );
            let e = searches_fit::<B6>(14, 1 << 40, threads, Some(avail)).unwrap_err();
            assert!(search_memory::<B6>(14, e.fits, threads) <= allowed, "{e}");
            assert!(search_memory::<B6>(14, e.fits * 2, threads) > allowed, "{e}");
            assert!(searches_fit::<B6>(14, e.fits, threads, Some(avail)).is_ok());
            assert!(e.to_string().contains(&format!("at most {} positions", e.fits)), "{e}");
        }
    }
}
