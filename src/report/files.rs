//! Result-file naming, timestamps and process statistics.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// A path `dir/stem.ext` that does not exist yet: `stem.ext`, else
/// `stem-2.ext`, `stem-3.ext`, ...
pub fn fresh_path(dir: &Path, stem: &str, ext: &str) -> PathBuf {
    let first = dir.join(format!("{stem}.{ext}"));
    if !first.exists() {
        return first;
    }
    (2..).map(|i| dir.join(format!("{stem}-{i}.{ext}"))).find(|p| !p.exists()).expect("unbounded")
}

/// The current UTC time as `YYYYMMDDTHHMMSSZ`.
pub fn timestamp_now() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    timestamp(secs)
}

/// `secs` since the Unix epoch as `YYYYMMDDTHHMMSSZ` (UTC).
pub fn timestamp(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}{m:02}{d:02}T{:02}{:02}{:02}Z", rem / 3600, rem / 60 % 60, rem % 60)
}

/// Proleptic Gregorian date of a day count since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Peak resident set size of this process in bytes (Linux `VmHWM`), if known.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(timestamp(0), "19700101T000000Z");
        assert_eq!(timestamp(951_782_400), "20000229T000000Z");
        assert_eq!(timestamp(1_795_000_000), "20261118T110640Z");
    }

    #[test]
    fn fresh_paths() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.json"), b"").unwrap();
        assert_eq!(fresh_path(dir.path(), "a", "json"), dir.path().join("a-2.json"));
        assert_eq!(fresh_path(dir.path(), "b", "json"), dir.path().join("b.json"));
    }
}
