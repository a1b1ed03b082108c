//! What the machine allows: threads, free disk and open files.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The worker threads a run gets unless told otherwise: the CPUs this
/// process may run on (its affinity, under `mpirun` or `taskset`), or
/// `threads` when given.
pub fn threads(threads: Option<u32>) -> usize {
    threads.map_or_else(|| std::thread::available_parallelism().map_or(1, |t| t.get()), |t| (t as usize).max(1))
}

/// Bytes an unprivileged process may still write on the filesystem of
/// `path` (the nearest existing ancestor is asked), if known.
pub fn free_disk(path: &Path) -> Option<u64> {
    let mut p = path;
    while !p.exists() {
        p = p.parent().filter(|q| !q.as_os_str().is_empty()).unwrap_or(Path::new("."));
    }
    let c = CString::new(p.as_os_str().as_bytes()).ok()?;
    // SAFETY: `statvfs` is a C struct of integers (and padding), for which
    // all-zero bytes are a valid value.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a valid NUL-terminated path and `st` a valid out-pointer.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some(st.f_bavail as u64 * st.f_frsize as u64)
}

/// The soft limit on open files of this process, raised first to the hard
/// limit where that is allowed.
pub fn open_files_limit() -> u64 {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: `lim` is a valid out-pointer.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return 256;
    }
    if lim.rlim_cur < lim.rlim_max {
        let raised = libc::rlimit { rlim_cur: lim.rlim_max, rlim_max: lim.rlim_max };
        // SAFETY: `raised` is a valid rlimit.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            lim.rlim_cur = lim.rlim_max;
        }
    }
    lim.rlim_cur
}

/// Runs a k-way merge may open at once on each of `threads` threads under
/// an open-file limit of `limit`: a reserve of 32 descriptors for the
/// process, and per merge its runs, the part it writes and a scratch
/// bucket; between 2 and `max`.
pub fn merge_fan_in(limit: u64, threads: usize, max: usize) -> usize {
    let per_thread = limit.saturating_sub(32) / threads.max(1) as u64;
    (per_thread.saturating_sub(3) as usize).clamp(2, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fan_in_fits_the_limit() {
        assert_eq!(merge_fan_in(1024, 2, 96), 96);
        assert_eq!(merge_fan_in(64, 2, 96), 13);
        assert_eq!(merge_fan_in(16, 8, 96), 2);
        for limit in [40u64, 64, 100, 256] {
            for threads in [1usize, 2, 3, 16] {
                let f = merge_fan_in(limit, threads, 96);
                assert!(f == 2 || 32 + threads as u64 * (f as u64 + 3) <= limit, "{limit} {threads}");
            }
        }
        assert!(free_disk(Path::new("/definitely/not/here")).is_some());
    }
}
