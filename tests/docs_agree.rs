//! The documents say what the code does: every format version named in
//! `docs/` and README equals the version the code writes, the documented
//! defaults equal the code's, README keeps its set-up commands and its
//! answers equal to the catalogue's, `results/README.md` shows commands a
//! reader can run, and every link between the documents resolves.

use othello_census::engine::layers::store::{BUCKET_KIND, MANIFEST_KIND, PART_KIND};
use othello_census::formats::checkpoint::FORMAT_VERSION;
use othello_census::report::census::SCHEMA_VERSION;

fn read(path: &str) -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/").to_string() + path).unwrap()
}

#[test]
fn documented_format_versions_are_the_codes() {
    let first = |path: &str| read(path).lines().next().unwrap().to_string();
    assert_eq!(first("docs/checkpoint-format.md"), format!("# Checkpoint format, version {FORMAT_VERSION}"));
    assert_eq!(PART_KIND.version, BUCKET_KIND.version);
    assert_eq!(
        first("docs/layer-format.md"),
        format!(
            "# Layer files of the layered engine: parts and buckets version {}, manifest version {}",
            PART_KIND.version, MANIFEST_KIND.version
        )
    );
    assert_eq!(
        first("docs/results-format.md"),
        format!("# Result files, schema `othello-census-results` {SCHEMA_VERSION}")
    );
    let results = read("docs/results-format.md");
    assert!(results.contains(&format!("| `schema_version` | `{SCHEMA_VERSION}` |")));
    assert!(results.contains(&format!("# schema: othello-census-results {SCHEMA_VERSION}\n")));
    let checkpoint = read("docs/checkpoint-format.md");
    assert!(checkpoint.contains(&format!("format version, u32 = {FORMAT_VERSION}")));
    let readme = read("README.md");
    assert!(readme.contains(&format!("(schema version {SCHEMA_VERSION})")), "README: results schema");
    let engines = read("docs/engines.md");
    assert!(engines.contains(&format!("(schema version {SCHEMA_VERSION})")), "docs/engines.md: results schema");
    assert!(engines.contains(&format!("The format (version {FORMAT_VERSION};")), "docs/engines.md: checkpoint format");
}

#[test]
fn documented_defaults_are_the_codes() {
    let engines = read("docs/engines.md");
    // the DFS engine's default memory: 60% of the available memory
    assert!(
        engines.contains("(default 60% of the memory\n  available when the run starts"),
        "docs/engines.md: DFS memory"
    );
    assert!(!engines.contains("70%") && !read("README.md").contains("70%"));
    if let Some(avail) = othello_census::engine::memory::available_memory() {
        let share = othello_census::engine::memory::default_dfs_memory() as f64 / avail as f64;
        assert!((share - 0.6).abs() < 0.01, "{share}");
    }
}

/// The three figures (point and 95% interval) that the catalogue's
/// whole-board line for an `n x n` board (`results/README.md`) gives after
/// `what` ("positions ", "terminal positions "), each in README's row for
/// that board to three significant digits: in the whole row, or in its
/// cell `cell` (counted from 1, the board's own).
fn readme_gives_the_catalogues(n: u32, what: &str, cell: Option<usize>) {
    let results = read("results/README.md");
    let head = format!("**The whole {n}x{n} board**");
    let line = results.lines().find(|l| l.starts_with(&head)).expect("a whole-board line");
    let after = line.split(what).nth(1).unwrap();
    let numbers: Vec<f64> = after.split([' ', '(', ')', ',']).filter_map(|w| w.parse::<f64>().ok()).take(3).collect();
    assert_eq!(numbers.len(), 3, "{line}");
    let readme = read("README.md");
    let row = readme.lines().find(|l| l.starts_with(&format!("| {n}x{n} |"))).expect("README's row");
    let text = cell.map_or(row, |c| row.split(" | ").nth(c).expect("the cell"));
    for x in numbers {
        let three = three_digits_of(x);
        assert!(
            three.iter().any(|t| text.contains(t.as_str())),
            "README's {n}x{n} row lacks {} ({what}): {text}",
            three.join(" or ")
        );
    }
}

/// The three-digit figures a value printed with four significant digits
/// may stand for. The catalogue rounds the value once, to four digits;
/// three digits of that figure would round it twice, and may be wrong
/// (4.6548e26 prints as 4.655e26, whose three digits are 4.66e26, while
/// the value's are 4.65e26). So either rounding of a value within half a
/// unit of the fourth digit is taken.
fn three_digits_of(x: f64) -> Vec<String> {
    if x == 0.0 {
        return vec![format!("{x:.2e}")];
    }
    let half_unit = 0.5 * 10f64.powi(x.abs().log10().floor() as i32 - 3);
    let mut v: Vec<String> =
        [x - 0.999 * half_unit, x, x + 0.999 * half_unit].iter().map(|y| format!("{y:.2e}")).collect();
    v.dedup();
    v
}

#[test]
fn a_four_digit_figure_stands_for_either_three_digit_rounding() {
    assert_eq!(three_digits_of(4.655e26), vec!["4.65e26", "4.66e26"]);
    assert_eq!(three_digits_of(8.995e26), vec!["8.99e26", "9.00e26"]);
    assert_eq!(three_digits_of(6.677e26), vec!["6.68e26"]);
    assert_eq!(three_digits_of(1.481e18), vec!["1.48e18"]);
}

/// The whole-board positions, in README's row.
fn readme_row_gives_the_catalogues_whole_board(n: u32) {
    readme_gives_the_catalogues(n, "positions ", None);
}

/// The whole-board terminal positions, in README's terminal positions
/// cell (the row's third).
fn readme_terminal_cell_gives_the_catalogues(n: u32) {
    readme_gives_the_catalogues(n, "terminal positions ", Some(2));
}

/// README's 6x6 answer is the catalogue's whole-board figure, its
/// terminal positions too.
#[test]
fn readme_gives_the_catalogues_6x6_figure() {
    readme_row_gives_the_catalogues_whole_board(6);
    readme_terminal_cell_gives_the_catalogues(6);
}

/// README's 8x8 answer is the catalogue's whole-board interval, its
/// terminal positions too, and its positions by double sampling of the
/// undecided samples.
#[test]
fn readme_gives_the_catalogues_8x8_interval() {
    readme_row_gives_the_catalogues_whole_board(8);
    readme_terminal_cell_gives_the_catalogues(8);
    readme_gives_the_catalogues(8, "not widened by replication)", Some(1));
}

/// README's set-up is the two commands a fresh machine with the Rust
/// toolchain runs (the main job on the small default board, and the
/// tests, which CI runs as README gives them), and README stays a page a
/// newcomer reads (issue 51: at most 250 lines).
#[test]
fn readme_sets_up_in_two_commands() {
    let readme = read("README.md");
    let setup = readme.split("## Set-up\n").nth(1).expect("a Set-up section");
    let block = setup.split("```sh\n").nth(1).and_then(|b| b.split("```").next()).expect("a command block");
    let commands: Vec<&str> = block.lines().map(|l| l.split('#').next().unwrap().trim()).collect();
    assert_eq!(commands, ["cargo run --release -- count --size 4", "cargo test --release"]);
    assert!(read(".ci/run").lines().any(|l| l == "cargo test --release"), ".ci/run runs README's test command");
    let cargo = read("Cargo.toml");
    let rust = cargo.lines().find_map(|l| l.strip_prefix("rust-version = ")).expect("rust-version");
    assert!(readme.contains(&format!("Rust {} or newer", rust.trim_matches('"'))), "README names rust-version");
    assert!(readme.lines().count() <= 250, "README has {} lines", readme.lines().count());
}

/// Every command `results/README.md` shows is one a reader can type:
/// the program is `othello-census` and no local path is left in it.
#[test]
fn results_readme_commands_are_portable() {
    let results = read("results/README.md");
    let mut n = 0;
    for line in results.lines().filter(|l| l.starts_with("| ") && l.contains(" | `")) {
        let command = line.split('`').nth(1).unwrap();
        assert!(command.starts_with("othello-census "), "{command}");
        assert!(!command.contains("/work/") && !command.contains("./"), "{command}");
        n += 1;
    }
    assert!(n > 30, "{n} commands");
    assert!(!results.contains("null cores") && !results.contains("(unknown)"), "missing facts read 'not recorded'");
}

/// Every relative link in README, docs/, examples/, probes/ and results/ points to
/// a file or directory that exists.
#[test]
fn links_between_documents_resolve() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs = vec![
        root.join("README.md"),
        root.join("CHANGELOG.md"),
        root.join("examples/README.md"),
        root.join("probes/README.md"),
    ];
    for dir in ["docs", "results", "results/benchmarks"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "md") {
                docs.push(p);
            }
        }
    }
    let mut broken = Vec::new();
    for doc in &docs {
        let text = std::fs::read_to_string(doc).unwrap_or_else(|e| panic!("{}: {e}", doc.display()));
        for target in text.split("](").skip(1).filter_map(|rest| rest.split(')').next()) {
            let path = target.split('#').next().unwrap();
            if path.is_empty() || path.contains("://") || path.contains(' ') {
                continue;
            }
            if !doc.parent().unwrap().join(path).exists() {
                broken.push(format!("{}: {target}", doc.strip_prefix(root).unwrap().display()));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The two figures after `what` in the catalogue's whole-board line for
/// `n x n`, as printed (four significant digits).
fn catalogue_pair_after(n: u32, what: &str) -> (String, String) {
    let results = read("results/README.md");
    let head = format!("**The whole {n}x{n} board**");
    let line = results.lines().find(|l| l.starts_with(&head)).expect("a whole-board line");
    let after = line.split(what).nth(1).unwrap_or_else(|| panic!("no {what:?} in {line}"));
    let words: Vec<&str> = after
        .split([' ', '(', ')', ',', ';'])
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| w.parse::<f64>().is_ok())
        .take(2)
        .collect();
    assert_eq!(words.len(), 2, "{line}");
    (words[0].to_string(), words[1].to_string())
}

/// README's comparison with Ishii and Tanaka gives the catalogue's bounds
/// on their quantity (classes of pairs under the square's 8 symmetries),
/// as the catalogue prints them, and those by double sampling.
#[test]
fn readme_gives_the_catalogues_8x8_pair_class_bounds() {
    let readme = read("README.md").split_whitespace().collect::<Vec<_>>().join(" ");
    for what in
        ["as Ishii and Tanaka count them: 95% between ", "classes under the 8 symmetries of the square 95% between "]
    {
        let (lo, hi) = catalogue_pair_after(8, what);
        assert!(readme.contains(&format!("between {lo} and {hi}")), "README lacks {lo} to {hi} ({what})");
    }
}
