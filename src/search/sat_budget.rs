//! The BatSat solver's budget, shared by the flip-history relaxation and
//! the exact game encoding: a count of conflicts and an optional cut.
//! Both searches import it from here, so neither imports the other.

use batsat::{Callbacks, ClauseKind, Lit};

/// A question asked while the solver works: once it answers true, the
/// solver stops (an estimate's time limit, a signal), and the position
/// gets no answer.
pub type Cut<'a> = &'a (dyn Fn() -> bool + Sync);

/// Stops the solver after a number of learnt clauses (one per conflict):
/// a deterministic budget, unlike a time limit; or, where a [`Cut`] is
/// given, as soon as it says so.
pub(crate) struct Budget<'a> {
    pub(crate) conflicts: u64,
    pub(crate) limit: u64,
    pub(crate) cut: Option<Cut<'a>>,
}

impl Callbacks for Budget<'_> {
    fn on_new_clause(&mut self, _c: &[Lit], src: ClauseKind) {
        if matches!(src, ClauseKind::Learnt) {
            self.conflicts += 1;
        }
    }

    fn stop(&self) -> bool {
        self.conflicts >= self.limit || self.cut.is_some_and(|cut| cut())
    }
}
