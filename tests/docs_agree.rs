//! The documents say what the code does: every format version named in
//! `docs/` and README equals the version the code writes, and README's
//! defaults equal the code's.

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
    assert!(readme.contains(&format!("The format (version {FORMAT_VERSION};")), "README: checkpoint format");
}

#[test]
fn readme_defaults_are_the_codes() {
    let readme = read("README.md");
    // the DFS engine's default memory: 60% of the available memory
    assert!(readme.contains("(default 60% of the memory\n  available when the run starts"), "README: DFS memory");
    assert!(!readme.contains("70%"));
    if let Some(avail) = othello_census::engine::memory::available_memory() {
        let share = othello_census::engine::memory::default_dfs_memory() as f64 / avail as f64;
        assert!((share - 0.6).abs() < 0.01, "{share}");
    }
}

/// README's 6x6 answer is the catalogue's whole-board figure (point and
/// 95% interval, to three significant digits), as `results/README.md`
/// states it.
#[test]
fn readme_gives_the_catalogues_6x6_figure() {
    let results = read("results/README.md");
    let line = results.lines().find(|l| l.starts_with("**The whole 6x6 board**")).expect("a 6x6 whole-board line");
    let after = line.split("positions ").nth(1).unwrap();
    let numbers: Vec<f64> = after.split([' ', '(', ')', ',']).filter_map(|w| w.parse::<f64>().ok()).take(3).collect();
    let readme = read("README.md");
    let row = readme.lines().find(|l| l.starts_with("| 6x6 |")).expect("README's 6x6 row");
    for x in numbers {
        let three = format!("{x:.2e}");
        assert!(row.contains(&three), "README's 6x6 row lacks {three}: {row}");
    }
}
