//! The state machine's loop: one step per committed phase until the run
//! ends, what one call keeps across phases, and the outcome it returns.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::{Driver, Session, Step};
use crate::census::{Census, LayerBy};
use crate::engine::layers::store::{MAX_FAN_IN, Manifest, Phase};
use crate::engine::layers::transport::Transport;
use crate::engine::layers::{LayersError, LayersOutcome, PhaseStat};
use crate::engine::resources::{merge_fan_in, open_files_limit};
use crate::key::Keyed;

impl<G: Keyed, T: Transport> Driver<'_, G, T> {
    /// Runs the state machine from the committed state `m` until the run
    /// ends, is stopped or fails: one step per phase (or slice), each
    /// ending in a commit.
    pub(super) fn run(&self, mut m: Manifest) -> Result<LayersOutcome, LayersError> {
        let mut s = self.session(&m)?;
        self.ctx.live.partitions.store(s.owned.len() as u64, Ordering::Relaxed);
        self.ctx.live.limit.store(m.run.limit as u64, Ordering::Relaxed);
        self.mine.sweep(m.keep());
        loop {
            if m.phase == Phase::Counted {
                return Ok(self.finished(m, s));
            }
            if self.t.any(self.ctx.stop.load(Ordering::SeqCst)) {
                return Err(self.stopped());
            }
            self.watch.begin();
            let phase_started = Instant::now();
            let step = match m.phase {
                Phase::Complete => self.after_complete(&mut m, &mut s, phase_started)?,
                Phase::Expanded => self.after_expanded(&mut m, &mut s, phase_started)?,
                Phase::Slicing => self.next_slice(&mut m, &mut s, phase_started)?,
                Phase::Counted => unreachable!("returned above"),
            };
            if step == Step::Done {
                return Ok(self.finished(m, s));
            }
        }
    }

    /// What this call keeps across phases, after checking that the manifest
    /// is a run of this board.
    pub(super) fn session(&self, m: &Manifest) -> Result<Session, LayersError> {
        let Some(by) = LayerBy::from_code(m.run.by) else {
            return Err(self.bad(format!("the manifest names an unknown layering ({})", m.run.by)));
        };
        if m.run.size != G::N {
            return Err(self.bad(format!("the manifest describes a {0}x{0} run, not {1}x{1}", m.run.size, G::N)));
        }
        let threads = self.ctx.settings.threads.max(1);
        let partitions = m.run.partitions;
        let owned: Vec<u32> = (0..partitions).filter(|&j| self.t.owns(j)).collect();
        Ok(Session {
            by,
            started: Instant::now(),
            elapsed_before: m.elapsed_seconds,
            pool: rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool"),
            fan_in: merge_fan_in(open_files_limit(), threads, MAX_FAN_IN),
            // the last layer is stored unless this session or the run's start said not
            store_last: self.ctx.settings.store_last && m.run.store_last,
            share: owned.len() as f64 / partitions.max(1) as f64,
            owned,
            largest: (0, 0),
            phases: Vec::new(),
            verified: None,
        })
    }

    /// The outcome of a run that has ended (a collective: the peak disk is
    /// the largest of every rank's).
    pub(super) fn finished(&self, m: Manifest, s: Session) -> LayersOutcome {
        let peak_disk = self.t.max(self.watch.session.load(Ordering::Relaxed));
        let mut layers = m.stats;
        Census::fill_including_ended(&mut layers);
        LayersOutcome {
            census: Census { size: G::N, by: s.by, limit: m.run.limit, layers },
            elapsed: Duration::from_secs_f64(m.elapsed_seconds),
            largest_layer: s.largest,
            peak_disk,
            phases: s.phases,
            command: m.run.command,
            partitions: m.run.partitions,
            last_layer_stored: m.phase != Phase::Counted,
        }
    }

    /// The record of a phase that ends now (a collective: its peak disk is
    /// the largest of every rank's).
    pub(super) fn phase_stat(
        &self,
        started: Instant,
        phase: &'static str,
        layer: u32,
        records: u64,
        slice: Option<(u32, u32)>,
    ) -> PhaseStat {
        PhaseStat {
            layer,
            phase,
            seconds: started.elapsed().as_secs_f64(),
            peak_disk: self.t.max(self.watch.end()),
            records,
            compactions: 0,
            exchanged: 0,
            rounds: 0,
            rounds_resumed: 0,
            slice,
        }
    }
}
