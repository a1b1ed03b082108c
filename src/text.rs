//! Small helpers for text meant for people: byte sizes in units that fit
//! the number (and the fixed form of the catalogue's tables), words in the
//! plural, and shell quoting for commands a user may copy and paste. Every
//! layer may use them (they depend on nothing).

/// Two sizes set side by side ("needs A, only B free"): as
/// [`human_bytes`], and with their byte counts where those read the same
/// ("needs 58.0 MiB, only 58.0 MiB free" said nothing).
pub fn distinct_bytes(a: f64, b: f64) -> (String, String) {
    let (x, y) = (human_bytes(a), human_bytes(b));
    if x == y && a.is_finite() && b.is_finite() {
        (format!("{x} ({:.0} bytes)", a.ceil()), format!("{y} ({:.0} bytes)", b.floor()))
    } else {
        (x, y)
    }
}

/// A byte count in the unit that fits it: `512 B`, `3.4 KiB`, `160 MiB`,
/// `2.25 GiB`, `1.50 TiB`; beyond 1024 TiB a power of ten (`2.1e22 bytes`).
/// Never rounds a non-zero size to zero, and keeps three significant digits.
pub fn human_bytes(bytes: f64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if !bytes.is_finite() {
        return "an unbounded number of bytes".into();
    }
    if bytes < 1024.0 {
        return format!("{bytes:.0} B");
    }
    let mut v = bytes;
    for unit in UNITS {
        v /= 1024.0;
        if v < 1024.0 {
            return match v {
                v if v < 10.0 => format!("{v:.2} {unit}"),
                v if v < 100.0 => format!("{v:.1} {unit}"),
                v => format!("{v:.0} {unit}"),
            };
        }
    }
    format!("{bytes:.1e} bytes")
}

/// A byte count in KiB, MiB or GiB, each with its own fixed decimals
/// (`29 KiB`, `22.6 MiB`, `23.54 GiB`): the form of the tables in
/// `results/README.md`, kept so that the catalogue writes them byte for
/// byte as before. Text for people elsewhere uses [`human_bytes`].
pub fn table_bytes(bytes: f64) -> String {
    match bytes {
        b if b < (1u64 << 20) as f64 => format!("{:.0} KiB", b / 1024.0),
        b if b < (1u64 << 30) as f64 => format!("{:.1} MiB", b / (1u64 << 20) as f64),
        b => format!("{:.2} GiB", b / (1u64 << 30) as f64),
    }
}

/// `1234567` -> `"1,234,567"`.
pub fn group_digits(n: impl Into<u128>) -> String {
    let s = n.into().to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `n` and the word, in the plural unless `n` is 1: `1 thread`, `2 threads`.
pub fn plural(n: impl Into<u128>, word: &str) -> String {
    let n = n.into();
    if n == 1 { format!("1 {word}") } else { format!("{} {word}s", group_digits(n)) }
}

/// `s` quoted for a POSIX shell where it needs to be: `resume 'my dir'`.
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(b, b'-' | b'_' | b'.' | b'/' | b',' | b':' | b'=' | b'+' | b'@' | b'%')
        });
    if plain { s.to_string() } else { format!("'{}'", s.replace('\'', r"'\''")) }
}

/// A path quoted for a shell ([`shell_quote`]).
pub fn shell_path(p: &std::path::Path) -> String {
    shell_quote(&p.to_string_lossy())
}

/// A command line from its words, each quoted where needed.
pub fn shell_words<S: AsRef<str>>(words: impl IntoIterator<Item = S>) -> String {
    words.into_iter().map(|w| shell_quote(w.as_ref())).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    /// Sizes that read the same are told apart by their bytes.
    #[test]
    fn equal_looking_sizes_show_their_bytes() {
        let mib = (1u64 << 20) as f64;
        let (a, b) = super::distinct_bytes(58.04 * mib, 57.98 * mib);
        assert!(a.contains("bytes") && b.contains("bytes") && a != b, "{a} / {b}");
        assert_eq!(super::distinct_bytes(60.0 * mib, 2.0 * mib), ("60.0 MiB".to_string(), "2.00 MiB".to_string()));
    }

    use super::*;

    #[test]
    fn sizes_keep_their_meaning() {
        assert_eq!(human_bytes(1.0), "1 B");
        assert_eq!(human_bytes(0.0), "0 B");
        assert_eq!(human_bytes(160.0 * 1024.0 * 1024.0), "160 MiB");
        assert_eq!(human_bytes(1536.0), "1.50 KiB");
        assert_eq!(human_bytes(2.5 * (1u64 << 30) as f64), "2.50 GiB");
        assert_eq!(human_bytes(3.0 * (1u64 << 40) as f64), "3.00 TiB");
        assert_eq!(human_bytes(2.1e22), "2.1e22 bytes");
        assert_eq!(table_bytes(29.0 * 1024.0), "29 KiB");
        assert_eq!(table_bytes(22.6 * (1u64 << 20) as f64), "22.6 MiB");
        assert_eq!(table_bytes(23.54 * (1u64 << 30) as f64), "23.54 GiB");
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("checkpoints/6x6-layers"), "checkpoints/6x6-layers");
        assert_eq!(shell_quote("sp wd"), "'sp wd'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_words(["resume", "a b", "--plies", "12"]), "resume 'a b' --plies 12");
        assert_eq!(plural(1u32, "thread"), "1 thread");
        assert_eq!(plural(1234u32, "node"), "1,234 nodes");
    }
}
