//! Ctrl-C and SIGTERM: the first asks the census to save a checkpoint and
//! stop; later ones only say that the save is under way (the save is atomic,
//! so even a kill cannot corrupt the previous checkpoint).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);
static SIGNALS: AtomicU32 = AtomicU32::new(0);
static INSTALLED: OnceLock<bool> = OnceLock::new();

/// Installs the handler (once) and returns the flag it sets.
pub fn stop_flag() -> &'static AtomicBool {
    INSTALLED.get_or_init(|| {
        ctrlc::set_handler(|| {
            STOP.store(true, Ordering::SeqCst);
            if SIGNALS.fetch_add(1, Ordering::SeqCst) > 0 {
                eprintln!("still saving the checkpoint; the previous one stays valid until the new one is complete");
            }
        })
        .is_ok()
    });
    &STOP
}
