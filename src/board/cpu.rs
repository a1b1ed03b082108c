//! The CPU levels the hot loops are compiled for, and the one place their
//! instructions are named.
//!
//! A hot loop (move generation, the perft walkers, the solver's search,
//! the layered engine's expansion) exists in up to three compiled copies:
//! portable, [`Avx2`] (AVX2 with the bit instructions popcnt, lzcnt, BMI1
//! and BMI2) and [`Avx512`] (those and AVX-512 F, VL, CD and VPOPCNTDQ).
//! A copy compiled for instructions the CPU lacks is undefined behaviour
//! when called, so the list of each level is written once, in
//! `with_feature_lists!`, and both the `#[target_feature]` attributes of
//! every copy ([`on_cpu!`], [`cpu_copies!`]) and the run-time check
//! ([`CpuLevel::detect`]) are expanded from it. The check hands out
//! zero-sized tokens ([`Avx2`], [`Avx512`]) that nothing else can make: a
//! dispatcher holding one may call the copy of its level.

use std::sync::OnceLock;

/// Expands `$then!` (one of this module's helper macros) with the feature
/// lists of the levels appended to its arguments. The only place the
/// instructions of a level are written.
macro_rules! with_feature_lists {
    ($then:ident { $($args:tt)* }) => {
        $crate::board::cpu::$then! {
            { $($args)* }
            avx2: ["popcnt", "lzcnt", "bmi1", "bmi2", "avx2"],
            avx512: ["popcnt", "lzcnt", "bmi1", "bmi2", "avx2", "avx512f", "avx512vl", "avx512cd", "avx512vpopcntdq"]
        }
    };
}
pub(crate) use with_feature_lists;

/// Whether the CPU has each level's instructions: `(avx2, avx512)`.
#[cfg(target_arch = "x86_64")]
macro_rules! detect_levels {
    ({} avx2: [$($a:tt),*], avx512: [$($b:tt),*]) => {
        (
            true $(&& std::arch::is_x86_feature_detected!($a))*,
            true $(&& std::arch::is_x86_feature_detected!($b))*,
        )
    };
}
#[cfg(target_arch = "x86_64")]
pub(crate) use detect_levels;

/// The feature names of each level, as data (for tests and reports).
macro_rules! list_levels {
    ({} avx2: [$($a:tt),*], avx512: [$($b:tt),*]) => {
        (&[$($a),*], &[$($b),*])
    };
}
pub(crate) use list_levels;

/// The item with the `#[target_feature]` attributes of one level.
macro_rules! target_item {
    ({ avx2 $item:item } avx2: [$($a:tt),*], avx512: [$($b:tt),*]) => {
        $(#[target_feature(enable = $a)])*
        $item
    };
    ({ avx512 $item:item } avx2: [$($a:tt),*], avx512: [$($b:tt),*]) => {
        $(#[target_feature(enable = $b)])*
        $item
    };
}
pub(crate) use target_item;

/// `fn` items compiled for the instructions of `avx2` or `avx512` (x86-64
/// only): `on_cpu!(avx2, fn f() {..})`. Such a function is `unsafe` to call
/// outside a copy of the same level; call it with the level's token.
macro_rules! on_cpu {
    ($level:ident, $item:item) => {
        #[cfg(target_arch = "x86_64")]
        $crate::board::cpu::with_feature_lists!(target_item { $level $item });
    };
}
pub(crate) use on_cpu;

/// The copies of a hot loop: `$walker!(module, legal_moves, flips,
/// mobility_sum, [features])` once per level, `portable` (no features),
/// `fast` (AVX2) and `fast512` (AVX-512; left out by `cpu_copies!(walker,
/// avx2)`), the move generator of each level named for the walker to use.
/// Dispatch with [`CpuLevel::detect`]: `fast` under an [`Avx2`] token,
/// `fast512` under an [`Avx512`] one.
macro_rules! cpu_copies {
    ($walker:ident) => {
        $crate::board::cpu::with_feature_lists!(emit_copies { $walker all });
    };
    ($walker:ident, avx2) => {
        $crate::board::cpu::with_feature_lists!(emit_copies { $walker avx2 });
    };
}
pub(crate) use cpu_copies;

macro_rules! emit_copies {
    ({ $walker:ident $upto:ident } avx2: [$($a:tt),*], avx512: [$($b:tt),*]) => {
        $walker!(portable, legal_moves, flips, mobility_sum, []);
        #[cfg(target_arch = "x86_64")]
        $walker!(fast, legal_moves_avx2, flips_avx2, mobility_sum_avx2, [$($a),*]);
        $crate::board::cpu::emit_copies!(@512 $upto $walker [$($b),*]);
    };
    (@512 all $walker:ident [$($b:tt),*]) => {
        #[cfg(target_arch = "x86_64")]
        $walker!(fast512, legal_moves_avx2, flips_avx2, mobility_sum_avx512, [$($b),*]);
    };
    (@512 avx2 $walker:ident [$($b:tt),*]) => {};
}
pub(crate) use emit_copies;

/// Proof that this CPU has the instructions of the AVX2 level: made only
/// by [`CpuLevel::detect`] after checking them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Avx2 {
    _checked: (),
}

/// Proof that this CPU has the instructions of the AVX-512 level (which
/// include the AVX2 level's): made only by [`CpuLevel::detect`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Avx512 {
    _checked: (),
}

impl Avx512 {
    /// The AVX2 token: every AVX2-level instruction is in the AVX-512 list
    /// (a test checks it).
    pub fn avx2(self) -> Avx2 {
        Avx2 { _checked: () }
    }
}

/// The best compiled copy this CPU can run, with its token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuLevel {
    Portable,
    Avx2(Avx2),
    Avx512(Avx512),
}

impl CpuLevel {
    /// This CPU's level, checked once per process.
    pub fn detect() -> CpuLevel {
        static LEVEL: OnceLock<CpuLevel> = OnceLock::new();
        *LEVEL.get_or_init(|| {
            #[cfg(target_arch = "x86_64")]
            {
                let (avx2, avx512) = with_feature_lists!(detect_levels {});
                if avx512 {
                    return CpuLevel::Avx512(Avx512 { _checked: () });
                }
                if avx2 {
                    return CpuLevel::Avx2(Avx2 { _checked: () });
                }
            }
            CpuLevel::Portable
        })
    }

    /// Every level this CPU can run, portable first: the copies a test
    /// compares.
    pub fn available() -> Vec<CpuLevel> {
        let mut out = vec![CpuLevel::Portable];
        match CpuLevel::detect() {
            CpuLevel::Portable => {}
            CpuLevel::Avx2(t) => out.push(CpuLevel::Avx2(t)),
            CpuLevel::Avx512(t) => out.extend([CpuLevel::Avx2(t.avx2()), CpuLevel::Avx512(t)]),
        }
        out
    }

    /// The AVX2 token, where this level includes AVX2.
    pub fn avx2(self) -> Option<Avx2> {
        match self {
            CpuLevel::Portable => None,
            CpuLevel::Avx2(t) => Some(t),
            CpuLevel::Avx512(t) => Some(t.avx2()),
        }
    }

    /// The level's name, for reports: `portable`, `AVX2`, `AVX-512`.
    pub fn name(self) -> &'static str {
        match self {
            CpuLevel::Portable => "portable",
            CpuLevel::Avx2(_) => "AVX2",
            CpuLevel::Avx512(_) => "AVX-512",
        }
    }

    /// The instructions each level is compiled for: `(avx2, avx512)`.
    pub fn feature_lists() -> (&'static [&'static str], &'static [&'static str]) {
        with_feature_lists!(list_levels {})
    }

    /// The levels a test of the compiled copies compares on this CPU. A
    /// level the CPU lacks is reported on stderr as skipped (the test then
    /// checks less), and fails the test instead where the environment
    /// variable `OTHELLO_CENSUS_REQUIRE_CPU` names it (`AVX2`, `AVX-512`,
    /// comma-separated: a machine that must test that copy).
    pub fn for_tests(what: &str) -> Vec<CpuLevel> {
        let have = CpuLevel::available();
        let required = std::env::var("OTHELLO_CENSUS_REQUIRE_CPU").unwrap_or_default();
        for name in ["AVX2", "AVX-512"] {
            if !have.iter().any(|l| l.name() == name) {
                assert!(
                    !required.split(',').any(|r| r.trim() == name),
                    "this CPU has no {name}, which OTHELLO_CENSUS_REQUIRE_CPU requires"
                );
                eprintln!("skipped: this CPU has no {name}; {what} does not compare its copy");
            }
        }
        have
    }
}

/// Asks the CPU to bring the cache line holding `*r` into its caches, for
/// a lookup coming soon (hash tables probed once per position). No effect
/// but on the cache; nothing off x86-64.
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing and faults on no address; `r` is a
    // valid reference anyway.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>((r as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

impl std::fmt::Display for CpuLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn avx512_level_includes_the_avx2_level() {
        let (avx2, avx512) = CpuLevel::feature_lists();
        for f in avx2 {
            assert!(avx512.contains(f), "{f} is in the AVX2 level but not the AVX-512 one");
        }
    }

    #[test]
    fn levels_are_ordered_and_named_once() {
        let levels = CpuLevel::available();
        assert_eq!(levels[0], CpuLevel::Portable);
        assert_eq!(*levels.last().unwrap(), CpuLevel::detect());
        let names: Vec<_> = levels.iter().map(|l| l.name()).collect();
        let mut unique = names.clone();
        unique.dedup();
        assert_eq!(names, unique);
    }

    /// The detection agrees with each instruction checked by name.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn detection_matches_the_lists() {
        let (avx2, avx512) = CpuLevel::feature_lists();
        let has = |f: &&str| match *f {
            "popcnt" => std::arch::is_x86_feature_detected!("popcnt"),
            "lzcnt" => std::arch::is_x86_feature_detected!("lzcnt"),
            "bmi1" => std::arch::is_x86_feature_detected!("bmi1"),
            "bmi2" => std::arch::is_x86_feature_detected!("bmi2"),
            "avx2" => std::arch::is_x86_feature_detected!("avx2"),
            "avx512f" => std::arch::is_x86_feature_detected!("avx512f"),
            "avx512vl" => std::arch::is_x86_feature_detected!("avx512vl"),
            "avx512cd" => std::arch::is_x86_feature_detected!("avx512cd"),
            "avx512vpopcntdq" => std::arch::is_x86_feature_detected!("avx512vpopcntdq"),
            other => panic!("a feature this test does not know: {other}"),
        };
        let expect = match (avx2.iter().all(has), avx512.iter().all(has)) {
            (_, true) => "AVX-512",
            (true, false) => "AVX2",
            _ => "portable",
        };
        assert_eq!(CpuLevel::detect().name(), expect);
    }
}
