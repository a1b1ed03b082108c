//! Command-line arguments (clap). Parsing only; running is in `cli::run`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use othello_census::board::BoardSize;
use othello_census::census::LayerBy;
use othello_census::engine::layers::{MAX_PLIES, default_partitions};

/// Exact census of Othello on 4x4, 6x6 and 8x8 boards: every reachable
/// position, terminal position and game, counted exactly.
#[derive(Debug, Parser)]
#[command(
    name = "othello-census",
    // the commit too: a long run's provenance, checked by scripts/
    version = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("OTHELLO_CENSUS_COMMIT"), ")"),
    about,
    long_about = "Exact census of Othello on 4x4, 6x6 and 8x8 boards.\n\n\
        A position is a board plus the side to move; a terminal position is one where \
        neither side can move; a class is a set of positions equal under the four \
        symmetries of the start (identity, 180-degree turn, both diagonal reflections). \
        Standard rules: Black moves first, a side with no move passes, the game ends when \
        neither side can move.",
    after_help = "Examples:\n  othello-census count --size 4\n  othello-census perft --size 8 --depth 9\n  \
        othello-census reproduce published-4x4"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Count every reachable position, terminal position and class, per disc count.
    Count(CountArgs),
    /// Continue a census from its checkpoint file (dfs) or work directory (layers).
    Resume(ResumeArgs),
    /// Describe a checkpoint file (and check its checksums), a layered work directory, or a resolve's progress.
    Inspect(InspectArgs),
    /// Count games per ply (a pass is a ply), under both conventions.
    Perft(PerftArgs),
    /// The exact value of a position with perfect play, and its principal
    /// variation.
    Solve(SolveArgs),
    /// Estimate the reachable positions, terminal positions and classes of
    /// layers beyond enumeration: uniform samples per disc count, each
    /// decided exactly by a backward search, with 95% intervals.
    Estimate(EstimateArgs),
    /// Whether a position can be reached from the start; when it can, a
    /// game that reaches it (replayed to check it).
    Reachable(ReachableArgs),
    /// Reproduce published figures and explain them.
    Reproduce(ReproduceArgs),
    /// The catalogue of counts under results/: add finished runs to it.
    Catalog(CatalogArgs),
    /// Draw the catalogue's classes, positions and terminal positions per layer (SVG).
    Plot(PlotArgs),
}

#[derive(Debug, Args)]
pub struct CatalogArgs {
    #[command(subcommand)]
    pub action: CatalogAction,
}

#[derive(Debug, Subcommand)]
pub enum CatalogAction {
    /// Add the JSON results of finished runs (checked first; on any
    /// refusal nothing is written).
    Add {
        /// Result files written by `count` or `resume` (`results/runs/*.json`
        /// unless the run was given `--out`), or by `estimate --out DIR`.
        #[arg(value_name = "RUN.json", required = true)]
        runs: Vec<PathBuf>,
        /// The catalogue directory.
        #[arg(long, value_name = "DIR", default_value = "results")]
        dir: PathBuf,
        /// Start a new catalogue in DIR if it holds none (without it, only
        /// the default results/ may be started anew).
        #[arg(long)]
        new: bool,
    },
    /// Write an estimate the catalogue holds back out as the document
    /// `estimate --out` wrote (checksum checked), to resolve it again when
    /// the run's own files are gone: `estimate --resolve FILE`.
    Export {
        /// The estimate's id, as the catalogue's `runs` column and
        /// catalog.json name it (`estimate-8x8-20261128T021813Z`).
        #[arg(value_name = "ID")]
        id: String,
        /// The file to write (refused if it exists).
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// The catalogue directory.
        #[arg(long, value_name = "DIR", default_value = "results")]
        dir: PathBuf,
    },
    /// Write the OEIS b-files of the catalogue's 8x8 by-ply terms into
    /// DIR/oeis/ (b124004.txt, b124005.txt, b124006.txt, and the shape
    /// sequences when counted).
    Oeis {
        /// The catalogue directory.
        #[arg(long, value_name = "DIR", default_value = "results")]
        dir: PathBuf,
    },
    /// Rewrite every file of an existing catalogue from its catalog.json
    /// (after an upgrade of the catalogue's format or of its checks).
    Regenerate {
        /// The catalogue directory.
        #[arg(long, value_name = "DIR", default_value = "results")]
        dir: PathBuf,
    },
}

#[derive(Debug, Args)]
pub struct PlotArgs {
    /// The catalogue directory.
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub dir: PathBuf,
    /// The SVG to write (default: DIR/census.svg).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

fn parse_size(s: &str) -> Result<BoardSize, String> {
    s.parse::<BoardSize>().map_err(|e| e.to_string())
}

/// The largest search budget: a search of 10^15 positions may hold 10^15
/// classes, petabytes; beyond it the memory estimate's products overflow
/// (3.85e17 wrapped to a few bytes and was let through).
pub const MAX_BUDGET: u64 = 1_000_000_000_000_000;

/// `--beam-width`: a whole number of positions, 0 to 10^6.
fn parse_beam_width(s: &str) -> Result<usize, String> {
    let w: usize = s.trim().parse().map_err(|_| format!("{s:?} is not a whole number of positions"))?;
    if w > 1_000_000 {
        return Err(format!("{w} is more than 10^6 positions a step (each may hold 5 KiB of candidates)"));
    }
    Ok(w)
}

/// `--sweep-width`: a whole number of positions, 0 to 10^9.
fn parse_sweep_width(s: &str) -> Result<usize, String> {
    let w: usize = s.trim().parse().map_err(|_| format!("{s:?} is not a whole number of positions"))?;
    if w > 1_000_000_000 {
        return Err(format!("{w} is more than 10^9 positions a step (each may hold 450 bytes)"));
    }
    Ok(w)
}

/// `K/N`: part K (from 1) of N.
fn parse_part(s: &str) -> Result<(u64, u64), String> {
    let bad = || format!("{s:?} is not a part K/N with 1 <= K <= N, e.g. 2/8");
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let (k, n): (u64, u64) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// The stages a search tries beside its budget, and their limits: the
/// same arguments for `estimate` and `reachable` (whose budgets and exact
/// encodings have different defaults, so those stay with each command).
#[derive(Debug, Args)]
pub struct StageArgs {
    /// Conflicts the flip-history relaxation (a SAT proof that no flip
    /// history makes the board) may spend on a position before the
    /// backward search takes it; 0 skips it. Verdicts stay exact.
    #[arg(long, value_name = "N", default_value_t = othello_census::search::reachable::RELAXATION_CONFLICTS)]
    pub sat_conflicts: u64,
    /// Positions a step the beam keeps, tried where the backward search
    /// runs out: it walks the predecessors a step at a time keeping the
    /// most compact ones, and finds the games of dense positions the
    /// search drowns in (or, when it never had to drop one, proves that
    /// none exists); 0 skips it. Verdicts stay exact. 0 to 10^6.
    #[arg(long, value_name = "WIDTH", default_value_t = othello_census::search::reachable::BEAM_WIDTH, value_parser = parse_beam_width)]
    pub beam_width: usize,
    /// Positions a step the sweep may hold, tried where the beam gives
    /// up: the same walk keeping every position of every step, which
    /// proves a position unreachable when its steps die out within this
    /// width (about 450 bytes a position); 0 skips it. 0 to 10^9.
    #[arg(long, value_name = "WIDTH", default_value_t = othello_census::search::reachable::SWEEP_WIDTH, value_parser = parse_sweep_width)]
    pub sweep_width: usize,
    /// The SAT solver of the exact game encoding (cadical, the default
    /// where built: `--features cadical`).
    #[arg(long, value_name = "SOLVER", value_enum, default_value_t = SatSolver::default())]
    pub sat_solver: SatSolver,
}

impl StageArgs {
    /// A search's limits: these stages, with a budget of `budget`
    /// positions and the exact encoding given `exact_conflicts`.
    pub fn limits(&self, budget: u64, exact_conflicts: u64) -> othello_census::estimate::SearchLimits {
        othello_census::estimate::SearchLimits {
            budget,
            relaxation_conflicts: self.sat_conflicts,
            exact_conflicts,
            exact_solver: self.sat_solver.into(),
            beam_width: self.beam_width,
            sweep_width: self.sweep_width,
        }
    }
}

impl EstimateArgs {
    /// The limits of the estimate's searches.
    pub fn limits(&self) -> othello_census::estimate::SearchLimits {
        self.stages.limits(self.budget, self.exact_conflicts)
    }
}

impl ReachableArgs {
    /// The limits of the search.
    pub fn limits(&self) -> othello_census::estimate::SearchLimits {
        self.stages.limits(self.budget, self.exact_conflicts)
    }
}

/// `--budget`: a whole number of positions, 1 to [`MAX_BUDGET`].
fn parse_budget(s: &str) -> Result<u64, String> {
    let out_of_range = || format!("the budget is a number of positions from 1 to {MAX_BUDGET} (10^15)");
    match s.trim().parse::<u128>() {
        Ok(b) if (1..=MAX_BUDGET as u128).contains(&b) => Ok(b as u64),
        Ok(_) => Err(out_of_range()),
        Err(_) if s.trim().starts_with('-') => Err(out_of_range()),
        Err(_) => Err(format!("{s:?} is not a whole number of positions; {}", out_of_range())),
    }
}

/// The board size `--size` gives, or else the one a position's text has
/// (its non-blank characters before any `;` are the squares and the side
/// to move): `reachable` and `solve` need no `--size` beside a position,
/// whatever size it is.
pub fn size_for_position(size: Option<BoardSize>, position: &str) -> anyhow::Result<BoardSize> {
    if let Some(s) = size {
        return Ok(s);
    }
    let board = position.split(';').next().unwrap_or("");
    let chars = board.chars().filter(|c| !c.is_whitespace()).count();
    match chars {
        17 => Ok(BoardSize::Four),
        37 => Ok(BoardSize::Six),
        65 => Ok(BoardSize::Eight),
        n => anyhow::bail!(
            "--position: {} squares and a side to move; a 4x4, 6x6 or 8x8 board has 16, 36 or 64 (or give --size)",
            n.saturating_sub(1)
        ),
    }
}

#[derive(Debug, Args)]
pub struct PerftArgs {
    /// Board size: 4, 6 or 8.
    #[arg(short, long, value_name = "N", default_value = "8", value_parser = parse_size, allow_negative_numbers = true)]
    pub size: BoardSize,
    /// Count plies 1..=D.
    #[arg(short, long, value_name = "D", value_parser = clap::value_parser!(u32).range(1..=128))]
    pub depth: u32,
    /// `hashed`: each subtree counted once per shape and remaining depth
    /// (transposition table keyed by the full shape key); `brute`: every
    /// game walked, the independent check.
    #[arg(long, value_enum, default_value = "hashed")]
    pub method: PerftMethod,
    /// Start even a run estimated to be far beyond reach (without it such
    /// a run is refused up front, with the estimate).
    #[arg(long)]
    pub force: bool,

    /// hashed: most memory for the transposition table, e.g. `4GiB`
    /// (default: a quarter of the available memory, at most 8 GiB).
    #[arg(long, value_name = "LIMIT", value_parser = parse_bytes)]
    pub memory: Option<u64>,
    /// Print one JSON document on stdout instead of a table.
    #[arg(long)]
    pub json: bool,
    /// No progress display on stderr.
    #[arg(short, long)]
    pub quiet: bool,
    /// Print a timestamped progress line this often, e.g. `30s`, `5m`
    /// (default when stderr is not a terminal: every minute; on a terminal
    /// a live status line is shown instead).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub progress_every: Option<std::time::Duration>,
}

#[derive(Debug, Args)]
pub struct EstimateArgs {
    /// Board size: 4, 6 or 8.
    #[arg(short, long, value_name = "N", default_value = "6", value_parser = parse_size, allow_negative_numbers = true)]
    pub size: BoardSize,
    /// The layers: disc counts and ranges (`20,24-28`), or `all` (5 to
    /// N*N; the default).
    #[arg(long, value_name = "K[,K..]|all", default_value = "all")]
    pub discs: String,
    /// Samples in all, shared among the layers (default 100000 unless
    /// --time is given).
    #[arg(long, value_name = "N", conflicts_with = "time")]
    pub samples: Option<u64>,
    /// Sample for this long instead, e.g. `10m`; the JSON gives the sample
    /// count that reproduces the run with --samples. Where the time runs
    /// out inside a round, the rest of it gets the cheap conditions but
    /// no search, and the searches under way are cut: those samples are
    /// listed untried, for a resolve at the run's settings to search.
    /// With --resolve: start no sample after this long, cut those under
    /// way, and write the partial document: every verdict exact, the samples not searched
    /// marked untried; the same command resumes, and a resolve of that
    /// document at the same settings searches only its untried samples.
    /// `--time 0` with --resolve searches nothing new: it writes the
    /// partial document of what its progress file and --gather hold.
    /// With --part: stop at this time and keep the part's progress (and
    /// its `.part-K-of-N.progress` copy, to gather what it decided); no
    /// document, as always with --part.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_or_zero)]
    pub time: Option<std::time::Duration>,
    /// The seed: the same seed and sample count give the same figures on
    /// any thread count.
    #[arg(long, value_name = "S", default_value = "1")]
    pub seed: u64,
    /// Positions one backward search may visit before the sample is
    /// counted undecided (it then widens the interval); 1 to 10^15.
    #[arg(long, value_name = "NODES", default_value = "1000000", value_parser = parse_budget)]
    pub budget: u64,
    /// Conflicts the exact game encoding (a SAT formula of every game of
    /// the position's length, passes included) may spend on a sample the
    /// backward search leaves; 0 skips it. Verdicts stay exact: a game
    /// that replays, or a proof that none exists.
    #[arg(long, value_name = "N", default_value = "0")]
    pub exact_conflicts: u64,
    #[command(flatten)]
    pub stages: StageArgs,
    /// Which samples to decide: all, or only the terminal ones (neither
    /// side can move). `terminal` gives the same terminal figure as `all`
    /// for the same draws at a fraction of the searches; its positions and
    /// classes are only bounded above, and the catalogue pools it into
    /// terminal positions only (with a seed no `all` run of the board uses).
    #[arg(long, value_name = "WHICH", value_enum, default_value_t = FocusArg::All)]
    pub focus: FocusArg,
    /// Enumerate every reachable position up to this many discs first; the
    /// backward searches stop there (default: 8 on 4x4, 14 on 6x6, 13 on
    /// 8x8).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(4..=64))]
    pub frontier: Option<u32>,
    /// The work directory of a finished census of this board by discs whose
    /// last layer is stored (`count --engine layers --max-discs K`, without
    /// --no-store-last): the searches also stop at the positions of its
    /// layer that need an odd number of passes, read from it (a search for
    /// a position that needs a pass otherwise exhausts every line below
    /// it). Verdicts stay exact; fewer samples are left undecided.
    #[arg(long, value_name = "DIR", conflicts_with = "census_layer")]
    pub odd_pass_census: Option<PathBuf>,
    /// The work directory of a finished census of this board by discs whose
    /// last layer is stored, as for --odd-pass-census: every position of
    /// that layer is read (8 bytes a class on 6x6, 16 on 8x8; refused when
    /// it does not fit in three quarters of the memory available), and no
    /// search goes below it. Verdicts stay exact.
    #[arg(long, value_name = "DIR")]
    pub census_layer: Option<PathBuf>,
    /// Decide again, with searches of --budget positions, the samples that
    /// this finished estimate's JSON lists as undecided (its board, seed,
    /// frontier and census layer: give the same --census-layer DIR when it
    /// used one), and report the estimate they make: the same samples, a
    /// larger budget. The document given is left as it is. Stopped (a
    /// signal, --time) with --out, it writes the partial document (see
    /// --time).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["samples", "odd_pass_census", "frontier", "focus"])]
    pub resolve: Option<PathBuf>,
    /// With --resolve: decide only part K of N of the undecided samples
    /// (the K-th of the document's list, then every N-th), so that N
    /// machines share one resolve. Each keeps what it decided in the
    /// progress file of its own --out (and, when done, in a copy named
    /// `resolve-ID.part-K-of-N.progress`) and writes no document; then
    /// copy those copies to one machine and run the same resolve there
    /// with --gather FILE..., which takes them and writes the document.
    #[arg(long, value_name = "K/N", requires_all = ["resolve", "out"], conflicts_with = "gather", value_parser = parse_part)]
    pub part: Option<(u64, u64)>,
    /// With --resolve: the progress files (`resolve-ID.progress`) of this
    /// resolve's parts run elsewhere (--part), taken before any sample is
    /// searched: only samples none of them decided are searched here. Each
    /// must be of the same document and settings.
    #[arg(long, value_name = "FILE", num_args = 1.., requires_all = ["resolve", "out"])]
    pub gather: Vec<PathBuf>,
    /// With --resolve: search every sample first with the exact encoding
    /// limited to N conflicts (below --exact-conflicts), then those left
    /// at --exact-conflicts. The same verdicts as one round, the cheap
    /// ones first: a time-boxed unit decides more samples. A sample the
    /// first round left counts as untried until the second searches it.
    #[arg(long, value_name = "N", requires = "resolve")]
    pub exact_first: Option<u64>,
    /// With --resolve and --out: where an exact search ends without a
    /// verdict (cut by --time or a signal, or at a limit),
    /// keep the short clauses the solver learned in DIR/exact-carry/, and
    /// let the next search of that sample go on from them; the conflict
    /// limits then count all the searches of a sample together. Verdicts
    /// stay exact; which samples a limit leaves may differ from a resolve
    /// without it, whose searches of a cut sample start afresh.
    #[arg(long, requires_all = ["resolve", "out"])]
    pub carry_exact: bool,
    /// With --resolve: search only the undecided samples of a fixed
    /// random subsample, one in D (a power of two; the subsample of 4
    /// lies inside that of 2). Which samples are in it is a hash of the
    /// seed, layer and index, so a later estimator can scale what the
    /// subsample decides up to the samples it stands for
    /// (docs/double-sampling.md). The others stay as the document
    /// has them, marked untried. Without it: every sample.
    #[arg(long, value_name = "D", requires = "resolve", value_parser = othello_census::estimate::parse_one_in)]
    pub subsample: Option<u64>,
    /// Threads (default: all cores).
    #[arg(short = 'j', long, value_name = "T", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// Print one JSON document on stdout instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also write the JSON document into this directory (for `catalog add`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// No progress display on stderr.
    #[arg(short, long)]
    pub quiet: bool,
    /// Print a timestamped progress line this often, e.g. `30s`, `5m`.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub progress_every: Option<std::time::Duration>,
}

#[derive(Debug, Args)]
pub struct ReachableArgs {
    /// Board size: 4, 6 or 8 (default: the position's, from its squares).
    #[arg(short, long, value_name = "N", value_parser = parse_size, allow_negative_numbers = true)]
    pub size: Option<BoardSize>,
    /// The position: N*N squares row by row from the top left, `X` Black,
    /// `O` White, `-` empty, then the side to move (`X` or `O`); also read:
    /// `x`, `*`, `B`, `b` Black, `o`, `W`, `w` White, `.` empty (the
    /// letters of other tools), spaces anywhere.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub position: String,
    /// Positions the backward search may visit before it answers
    /// "undecided" (1 to 10^15).
    #[arg(long, value_name = "NODES", default_value = "100000000", value_parser = parse_budget)]
    pub budget: u64,
    /// Conflicts the exact game encoding (a SAT formula of every game of
    /// the position's length, passes included) may spend on a sample the
    /// backward search leaves; 0 skips it. Verdicts stay exact: a game
    /// that replays, or a proof that none exists.
    #[arg(long, value_name = "N", default_value = "1000000")]
    pub exact_conflicts: u64,
    #[command(flatten)]
    pub stages: StageArgs,
    /// Enumerate every reachable position up to this many discs first
    /// (default: 8 on 4x4, 14 on 6x6, 13 on 8x8).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(4..=64))]
    pub frontier: Option<u32>,
    /// Also answer from every class of the stored last layer of this census
    /// by discs (as `estimate --census-layer`: the same search as the
    /// estimate's, so an undecided sample of its JSON can be tried again
    /// with a larger --budget); the game is then completed below that
    /// layer by a second search.
    #[arg(long, value_name = "DIR")]
    pub census_layer: Option<std::path::PathBuf>,
    /// Print one JSON document on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct SolveArgs {
    /// Board size: 4, 6 or 8 (default: the position's, from its squares;
    /// without a position, 4).
    #[arg(short, long, value_name = "N", value_parser = parse_size, allow_negative_numbers = true)]
    pub size: Option<BoardSize>,
    /// Start even a run estimated to be far beyond reach (without it such
    /// a run is refused up front, with the estimate).
    #[arg(long)]
    pub force: bool,
    /// The position (default: the start): N*N squares row by row from the
    /// top left, `X` Black, `O` White, `-` empty, then the side to move
    /// (`X` or `O`); also read: `x`, `*`, `B`, `b` Black, `o`, `W`, `w`
    /// White, `.` empty, spaces anywhere; an 8x8 `.obf` line reads too. Its
    /// four centre squares must be occupied (they are from the start on).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub position: Option<String>,
    /// Threads (default: all cores), sharing one transposition table.
    #[arg(short = 'j', long, value_name = "T", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// Most memory for the transposition table, e.g. `4GiB` (default: a
    /// quarter of the available memory, at most 1 GiB; a table is cleared
    /// page by page as it fills, which a short solve notices).
    #[arg(long, value_name = "LIMIT", value_parser = parse_bytes)]
    pub memory: Option<u64>,
    /// Print one JSON document on stdout instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress display on stderr.
    #[arg(short, long)]
    pub quiet: bool,
    /// Print a timestamped progress line this often, e.g. `30s`, `5m`
    /// (default when stderr is not a terminal: every minute; on a terminal
    /// a live status line is shown instead).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub progress_every: Option<std::time::Duration>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PerftMethod {
    /// Transpositions and symmetry, through a bounded table.
    Hashed,
    /// Every game walked.
    Brute,
}

/// The layered engine's flags of disk and of the last layer, which `count`
/// and `resume` both take: declared once, so that their names, defaults
/// and help cannot drift apart (each text says where `resume` differs).
#[derive(Debug, Args)]
pub struct LayeredDiskArgs {
    /// Layered engine: most bytes of disk the work directory may hold, e.g.
    /// `50GiB` (default: the free space; on `resume`, the limit the run was
    /// last given, if any). Each layer is checked before it starts.
    #[arg(long, value_name = "LIMIT", value_parser = parse_bytes)]
    pub disk: Option<u64>,
    /// Layered engine: count the last layer while merging it, without
    /// writing it to disk (the largest layer then takes no disk; the run
    /// cannot be extended afterwards).
    #[arg(long)]
    pub no_store_last: bool,
    /// Layered engine, with --no-store-last: count the last layer in K
    /// slices of its partitions, each expanding the whole parent layer and
    /// keeping a K-th of the children, so that the disk holds one slice's
    /// sorted runs at a time (default: as few slices as the free disk
    /// allows, one if the layer fits whole; on `resume`, the number the run
    /// was last given, if any). Each slice is a unit of resume; a run
    /// already counting its last layer in slices keeps its own number.
    #[arg(long, value_name = "K", requires = "no_store_last", value_parser = clap::value_parser!(u32).range(1..))]
    pub slices: Option<u32>,
    /// Layered engine: compact every layer's buckets while they grow, so
    /// the sorted runs stay within about 1.65 times the layer (by default
    /// only layers whose uncompacted runs, about 3 times the layer, would
    /// not fit on the disk are compacted; compaction costs time). A run
    /// started or resumed with it keeps it.
    #[arg(long)]
    pub compact_buckets: bool,
}

#[derive(Debug, Args)]
pub struct CountArgs {
    /// Board size: 4, 6 or 8.
    #[arg(short, long, value_name = "N", default_value = "4", value_parser = parse_size, allow_negative_numbers = true)]
    pub size: BoardSize,
    /// Census engine: `dfs` (in memory, fastest while it fits) or `layers`
    /// (out of core, layer by layer, game counts included).
    #[arg(long, value_enum, default_value = "dfs")]
    pub engine: EngineChoice,
    /// Layered engine: layers by disc count or by ply (a pass is a ply).
    #[arg(long, value_enum, default_value = "discs")]
    pub by: ByChoice,
    /// Layered engine with --by ply: count plies 1..=P (default: until
    /// every game has ended).
    #[arg(long, value_name = "P", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub plies: Option<u32>,
    /// Layered engine: hash partitions per layer [default: 64; 16 on 4x4].
    #[arg(long, value_name = "P", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub partitions: Option<u32>,
    #[command(flatten)]
    pub layered: LayeredDiskArgs,
    /// Layered engine: directory for the layer files, which are its
    /// checkpoints (default: checkpoints/<N>x<N>-layers-<by><K>-<time>).
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
    /// Stop at K discs: count the layers 4..=K only (the result is then
    /// marked incomplete). Default: the whole game.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(4..=64))]
    pub max_discs: Option<u32>,
    /// Worker threads (default: all cores).
    #[arg(short = 'j', long, value_name = "T", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// Memory the run may use, e.g. `8GiB`, `512MiB`, `2G`. dfs: its cache
    /// (default: 60% of the memory available at start); layers: its sort
    /// buffers (default: 4 GiB or a quarter of the available memory,
    /// whichever is less, leaving the rest to the page cache).
    #[arg(long, value_name = "LIMIT", value_parser = parse_bytes)]
    pub memory: Option<u64>,
    /// Checkpoint file, written atomically every --checkpoint-every and on
    /// Ctrl-C or SIGTERM (default: checkpoints/<N>x<N>-dfs-<K>-<time>.ckpt).
    /// An existing file is never overwritten: continue it with `resume`.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
    /// Start even a run estimated to be far beyond reach (without it such
    /// a run is refused up front, with the estimate).
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `count`'s arguments typed per engine (parse, then options, then run):
/// made once from [`CountArgs`], where a flag of the other engine is
/// refused, so that neither engine sees the other's flags.
#[derive(Debug)]
pub enum CountOptions {
    Dfs(DfsCount),
    Layers(LayersCount),
}

/// A census with the DFS engine.
#[derive(Debug)]
pub struct DfsCount {
    pub size: BoardSize,
    /// The last disc layer (the whole game by default).
    pub max_discs: u32,
    pub threads: Option<u32>,
    pub memory: Option<u64>,
    pub checkpoint: Option<PathBuf>,
    // (no `force`: a cache that cannot fit the memory is refused whatever
    // the flags, so `--force` changes nothing for this engine)
    pub output: OutputArgs,
}

/// A census with the layered engine.
#[derive(Debug)]
pub struct LayersCount {
    pub size: BoardSize,
    pub by: LayerBy,
    /// The last layer: a disc count or a ply.
    pub limit: u32,
    pub partitions: u32,
    pub disk: Option<u64>,
    pub store_last: bool,
    pub slices: Option<u32>,
    pub compact_buckets: bool,
    pub work_dir: Option<PathBuf>,
    pub threads: Option<u32>,
    pub memory: Option<u64>,
    pub force: bool,
    pub output: OutputArgs,
}

impl TryFrom<CountArgs> for CountOptions {
    type Error = anyhow::Error;

    fn try_from(a: CountArgs) -> anyhow::Result<CountOptions> {
        let n = a.size.n();
        if a.max_discs.is_some_and(|k| k > n * n) {
            anyhow::bail!(
                "--max-discs {} is more than the {} squares of a {} board",
                a.max_discs.unwrap_or(0),
                n * n,
                a.size
            );
        }
        match a.engine {
            EngineChoice::Dfs => {
                if a.by != ByChoice::Discs
                    || a.plies.is_some()
                    || a.work_dir.is_some()
                    || a.partitions.is_some()
                    || a.layered.disk.is_some()
                    || a.layered.no_store_last
                    || a.layered.compact_buckets
                {
                    anyhow::bail!(
                        "--by, --plies, --work-dir, --partitions, --disk, --no-store-last and --compact-buckets are \
                         for the layered engine (--engine layers)"
                    );
                }
                Ok(CountOptions::Dfs(DfsCount {
                    size: a.size,
                    max_discs: a.max_discs.unwrap_or(n * n),
                    threads: a.threads,
                    memory: a.memory,
                    checkpoint: a.checkpoint,
                    output: a.output,
                }))
            }
            EngineChoice::Layers => {
                if a.checkpoint.is_some() || a.output.checkpoint_every.is_some() {
                    anyhow::bail!(
                        "--checkpoint and --checkpoint-every are for the dfs engine; the layered engine's \
                         checkpoints are its layer files in --work-dir, written after every layer and partition"
                    );
                }
                let (by, limit) = match a.by {
                    ByChoice::Discs if a.plies.is_some() => {
                        anyhow::bail!("--plies goes with --by ply; with --by discs use --max-discs")
                    }
                    ByChoice::Discs => (LayerBy::Discs, a.max_discs.unwrap_or(n * n)),
                    ByChoice::Ply if a.max_discs.is_some() => {
                        anyhow::bail!("--max-discs goes with --by discs; with --by ply use --plies")
                    }
                    ByChoice::Ply => (LayerBy::Ply, a.plies.unwrap_or(MAX_PLIES)),
                };
                Ok(CountOptions::Layers(LayersCount {
                    size: a.size,
                    by,
                    limit,
                    partitions: a.partitions.unwrap_or(default_partitions(n)),
                    disk: a.layered.disk,
                    store_last: !a.layered.no_store_last,
                    slices: a.layered.slices,
                    compact_buckets: a.layered.compact_buckets,
                    work_dir: a.work_dir,
                    threads: a.threads,
                    memory: a.memory,
                    force: a.force,
                    output: a.output,
                }))
            }
        }
    }
}

/// Output and run options shared by `count` and `resume`.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// DFS engine: time between two checkpoints, e.g. `90s`, `10m`, `2h`
    /// [default: 30m] (the layered engine checkpoints every finished layer
    /// and partition).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub checkpoint_every: Option<std::time::Duration>,
    /// Directory for the JSON and CSV result files of this run (add them
    /// to the committed catalogue with `othello-census catalog add`)
    /// [default: results/runs; for `resume`, the directory its run was
    /// given].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print one JSON document on stdout instead of a table.
    #[arg(long)]
    pub json: bool,
    /// No progress display and no notes on stderr (errors still appear).
    #[arg(short, long)]
    pub quiet: bool,
    /// Print a timestamped progress line this often, e.g. `30s`, `5m`
    /// (default when stderr is not a terminal: every minute; on a terminal
    /// a live status line is shown instead).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub progress_every: Option<std::time::Duration>,
}

impl OutputArgs {
    /// The directory given with `--out`, or the default.
    pub fn out_dir(&self) -> PathBuf {
        self.out.clone().unwrap_or_else(|| PathBuf::from(DEFAULT_OUT))
    }
}

/// Where result files go when no `--out` is given.
pub const DEFAULT_OUT: &str = "results/runs";

#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// The checkpoint file (dfs) or work directory (layers); it holds the
    /// run's whole configuration.
    #[arg(value_name = "FILE|DIR")]
    pub file: PathBuf,
    /// Worker threads (default: all cores; does not change the counts).
    #[arg(short = 'j', long, value_name = "T", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// Memory the run may use (default: the limit saved with the run).
    #[arg(long, value_name = "LIMIT", value_parser = parse_bytes)]
    pub memory: Option<u64>,
    #[command(flatten)]
    pub layered: LayeredDiskArgs,
    /// Layered run by discs: take it to K discs (a finished run goes on
    /// from its last layer).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(4..=64))]
    pub max_discs: Option<u32>,
    /// Layered run by ply: take it to P plies (a finished run goes on from
    /// its last layer).
    #[arg(long, value_name = "P", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub plies: Option<u32>,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The checkpoint file (dfs), work directory (layers), or a resolve's
    /// progress file (`estimate --resolve --out DIR`: what it has decided
    /// so far).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Print one JSON document on stdout instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineChoice {
    /// Parallel depth-first walkers, shared in-memory cache.
    Dfs,
    /// Layer by layer, spilled to disk, hash-partitioned; counts games too.
    Layers,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ByChoice {
    /// Layer k: positions with k discs.
    Discs,
    /// Layer n: positions after exactly n plies, finished games dropped.
    Ply,
}

#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// Which figures.
    #[arg(value_enum)]
    pub what: Reproducible,
    /// Print one JSON document on stdout instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Reproducible {
    /// The 4x4 totals of the design document: 24,981 and 2,576.
    #[value(name = "published-4x4")]
    Published4x4,
}

/// Parses a byte count: a number with an optional unit (K, M, G, T, with or
/// without `iB`/`B`; all binary multiples).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num.parse().map_err(|_| format!("not a size: {s:?} (try 8GiB or 512MiB)"))?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return Err(format!("unknown unit in {s:?} (use K, M, G or T)")),
    };
    let bytes = value * mult as f64;
    if !(1.0..1.8e19).contains(&bytes) {
        return Err(format!("size out of range: {s:?}"));
    }
    Ok(bytes as u64)
}

/// Parses a duration: a number and a unit (`ms`, `s`, `m`, `h`, `d`); a
/// bare number is seconds.
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    in_range(s, duration_seconds(s)?)
}

/// [`parse_duration`], or zero (`0`, `0s`, ...): for a resolve's
/// `--time`, where zero means "search nothing new".
pub fn parse_duration_or_zero(s: &str) -> Result<std::time::Duration, String> {
    match duration_seconds(s)? {
        0.0 => Ok(std::time::Duration::ZERO),
        secs => in_range(s, secs),
    }
}

/// `secs` (of the duration `s`) as a duration, from a millisecond to
/// 10^9 seconds.
fn in_range(s: &str, secs: f64) -> Result<std::time::Duration, String> {
    if !(0.001..1e9).contains(&secs) {
        return Err(format!("duration out of range: {s:?}"));
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}

/// The seconds a duration names (digits and a point, then a unit), not
/// yet checked for range.
fn duration_seconds(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num.parse().map_err(|_| format!("not a duration: {s:?} (try 90s, 10m or 2h)"))?;
    Ok(match unit.trim() {
        "ms" => value / 1000.0,
        "" | "s" => value,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        "d" => value * 86400.0,
        _ => return Err(format!("unknown unit in {s:?} (use ms, s, m, h or d)")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        use std::time::Duration;
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration_or_zero("0"), Ok(Duration::ZERO));
        assert_eq!(parse_duration_or_zero("0s"), Ok(Duration::ZERO));
        assert_eq!(parse_duration_or_zero("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration_or_zero("0 s"), Ok(Duration::ZERO));
        assert_eq!(parse_duration_or_zero("0.0ms"), Ok(Duration::ZERO));
        for bad in ["0x", "-0", "+0", "0e0", ""] {
            assert!(parse_duration_or_zero(bad).is_err(), "{bad}");
        }
        assert!(parse_duration_or_zero("0x").unwrap_err().contains("\"0x\""));
        assert!(parse_duration("0s").is_err());
        assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("45"), Ok(Duration::from_secs(45)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("3w").is_err());
    }

    #[test]
    fn bytes() {
        assert_eq!(parse_bytes("8GiB"), Ok(8 << 30));
        assert_eq!(parse_bytes("512M"), Ok(512 << 20));
        assert_eq!(parse_bytes("1.5g"), Ok(3 << 29));
        assert_eq!(parse_bytes("1000"), Ok(1000));
        assert!(parse_bytes("lots").is_err());
        assert!(parse_bytes("3Q").is_err());
        assert!(parse_bytes("0").is_err());
    }

    #[test]
    fn clap_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}

/// Which samples an estimate decides (`--focus`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FocusArg {
    /// Every sample.
    All,
    /// Only terminal candidates.
    Terminal,
}

impl From<FocusArg> for othello_census::estimate::Focus {
    fn from(f: FocusArg) -> Self {
        match f {
            FocusArg::All => Self::All,
            FocusArg::Terminal => Self::Terminal,
        }
    }
}

/// The SAT solvers of the exact game encoding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum SatSolver {
    /// BatSat, pure Rust (always built).
    #[cfg_attr(not(feature = "cadical"), default)]
    Batsat,
    /// CaDiCaL (only in a build with `--features cadical`).
    #[cfg(feature = "cadical")]
    #[cfg_attr(feature = "cadical", default)]
    Cadical,
    /// CaDiCaL in its configuration for unsatisfiable formulas (only in a
    /// build with `--features cadical`): not faster than the default since
    /// search generation 8 (1.13x its conflicts on 8 dense 8x8 samples;
    /// results/benchmarks/README.md, CaDiCaL's options).
    #[cfg(feature = "cadical")]
    CadicalUnsat,
}

impl From<SatSolver> for othello_census::search::game_encoding::Solver {
    fn from(s: SatSolver) -> Self {
        match s {
            SatSolver::Batsat => Self::BatSat,
            #[cfg(feature = "cadical")]
            SatSolver::Cadical => Self::CaDiCaL,
            #[cfg(feature = "cadical")]
            SatSolver::CadicalUnsat => Self::CaDiCaLUnsat,
        }
    }
}
