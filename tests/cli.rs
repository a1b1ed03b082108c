//! The real binary: output formats, result files, and one-line errors.

use assert_cmd::Command;
use serde_json::Value;

fn bin() -> Command {
    Command::cargo_bin("othello-census").unwrap()
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn perft_json_reproduces_a124004() {
    use othello_census::published::{A124004, BIK_PERFT};
    let out = bin().args(["perft", "--size", "8", "--depth", "10", "--json"]).output().unwrap();
    assert!(out.status.success());
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let col = |name: &str| -> Vec<u128> {
        doc["plies"].as_array().unwrap().iter().map(|r| r[name].as_u64().unwrap() as u128).collect()
    };
    // `games` is A124004 a(1..10); the other column is Bik's, 24,571,284 at 10
    assert_eq!(col("games"), A124004[1..=10]);
    assert_eq!(col("games_including_ended")[9], BIK_PERFT.iter().find(|(p, _)| *p == 10).unwrap().1);
    assert!(doc["conventions"]["games"].as_str().unwrap().contains("A124004"));
    assert!(doc["conventions"]["games_including_ended"].as_str().unwrap().contains("not an OEIS"));
    // the table says which column is which
    let out = bin().args(["perft", "--size", "8", "--depth", "10"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("24,571,056") && text.contains("24,571,284") && text.contains("OEIS A124004"), "{text}");
}

#[test]
fn perft_methods_agree_and_show_progress() {
    let run = |method: &str| {
        let out = bin()
            .args(["perft", "--size", "6", "--depth", "11", "--json", "--progress-every", "1ms", "--method", method])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        (doc["plies"].clone(), stderr_of(&out))
    };
    let (hashed, log) = run("hashed");
    let (brute, _) = run("brute");
    assert_eq!(hashed, brute);
    assert_eq!(hashed.as_array().unwrap().len(), 11);
    // a timestamped line per interval, with the subtrees done and the time left
    assert!(log.lines().any(|l| l.starts_with('[') && l.contains("perft 6x6 depth 11")), "{log}");
}

/// `solve` prints its value, in JSON as in the progress lines on stderr;
/// `--quiet` silences the progress; a bad position is one line and a
/// non-zero exit.
#[test]
fn solve_json_progress_and_errors() {
    let out = bin().args(["solve", "--size", "4", "--json", "--progress-every", "1ms"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let value = doc["value"].as_i64().unwrap();
    assert!(value < 0, "White wins 4x4 (known-values.md)");
    let log = stderr_of(&out);
    let last = log.lines().last().unwrap_or_default();
    assert!(
        last.starts_with('[') && last.contains("solved 4x4") && last.contains(&format!("value {value:+}")),
        "{log}"
    );
    let quiet = bin().args(["solve", "--size", "4", "--quiet"]).output().unwrap();
    assert!(quiet.status.success() && quiet.stderr.is_empty(), "{}", stderr_of(&quiet));
    let bad = bin().args(["solve", "--size", "4", "--position", "----"]).output().unwrap();
    assert!(!bad.status.success());
    assert_eq!(stderr_of(&bad).trim().lines().count(), 1, "{}", stderr_of(&bad));
}

#[test]
fn perft_table_4x4() {
    let out = bin().args(["perft", "--size", "4", "--depth", "16"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let row15 = text.lines().find(|l| l.starts_with("15 ")).unwrap();
    assert!(row15.contains("60,060"), "{row15}");
}

#[test]
fn count_4x4_json_and_result_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin().args(["count", "--size", "4", "--json", "--quiet", "--out"]).arg(dir.path()).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["totals"]["positions"], 62_789);
    assert_eq!(doc["totals"]["terminal_positions"], 6_168);
    assert_eq!(doc["totals"]["classes"], 15_856);
    assert_eq!(doc["complete"], true);
    assert_eq!(doc["layers"].as_array().unwrap().len(), 13);
    assert_eq!(doc["layers"][12]["positions"], 5_052);
    let mut files: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    files.sort();
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(files[0].starts_with("4x4-dfs-discs16-") && files[0].ends_with(".csv"), "{files:?}");
    assert!(files[1].ends_with(".json"));
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join(&files[1])).unwrap()).unwrap();
    assert_eq!(saved["totals"], doc["totals"]);
    assert!(saved["command"].as_str().unwrap().contains("count --size 4"));
    let csv = std::fs::read_to_string(dir.path().join(&files[0])).unwrap();
    // the DFS engine counts no games: no game column
    let total = csv.lines().find(|l| l.starts_with("total,")).unwrap();
    let cells: Vec<&str> = total.split(',').collect();
    assert_eq!(cells[..7], ["total", "62789", "15856", "51943", "6168", "1604", "5254"], "{csv}");
    // Black wins, draws, White wins add up to the terminal positions, and
    // so does the histogram of disc differences (the last column)
    let results: u64 = cells[7..10].iter().map(|c| c.parse::<u64>().unwrap()).sum();
    assert_eq!(results, 6168);
    assert_eq!(cells[10..12], ["8988", "2279"]);
    let hist: u64 = cells[12].split(' ').map(|p| p.split_once(':').unwrap().1.parse::<u64>().unwrap()).sum();
    assert_eq!(hist, 6168);
    assert!(
        csv.starts_with(&format!(
            "# schema: othello-census-results {}\n",
            othello_census::report::census::SCHEMA_VERSION
        )),
        "{csv}"
    );
    assert!(
        csv.lines().any(|l| l.starts_with("# engine: dfs; board: 4x4; layer_by: discs; limit: 16; complete: true"))
    );
}

#[test]
fn count_cut_is_marked_incomplete() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["count", "--size", "6", "--max-discs", "10", "--json", "-q", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["complete"], false);
    assert!(doc["note"].as_str().unwrap().starts_with("incomplete"));
    assert_eq!(doc["limit"], 10);
    assert_eq!(doc["layer_by"], "discs");
}

#[test]
fn count_refuses_what_cannot_fit() {
    let out = bin().args(["count", "--size", "8", "--memory", "1GiB"]).output().unwrap();
    assert!(!out.status.success());
    let err = stderr_of(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--max-discs") && err.contains("layered engine"), "{err}");
}

#[test]
fn bad_arguments_get_one_line() {
    for args in [
        vec!["perft", "--size", "5", "--depth", "3"],
        vec!["perft", "--depth", "0"],
        vec!["perft", "--depth", "3", "--frobnicate"],
        vec!["count", "--size", "7"],
        vec!["count", "--size", "4", "--max-discs", "17"],
        vec!["count", "--memory", "lots"],
        vec!["nonsense"],
    ] {
        let out = bin().args(&args).output().unwrap();
        assert!(!out.status.success(), "{args:?} should fail");
        let err = stderr_of(&out);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
    }
    let out = bin().args(["perft", "--size", "5", "--depth", "3"]).output().unwrap();
    assert!(stderr_of(&out).contains("board size must be 4, 6 or 8"));
}

#[test]
fn reproduce_published_4x4() {
    let out = bin().args(["reproduce", "published-4x4"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("24,981") && text.contains("2,576") && text.contains("62,789"));
    let out = bin().args(["reproduce", "published-4x4", "--json"]).output().unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["reproduced"], true);
    assert_eq!(doc["figures"][0]["reproduced"], 24_981);
    assert_eq!(doc["figures"][1]["reproduced"], 2_576);
    assert_eq!(doc["standard_games"], 60_060);
}

#[test]
fn help_names_every_command() {
    let out = bin().arg("--help").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // the Commands section lists each subcommand at the start of a line
    let listed: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for c in ["count", "resume", "inspect", "perft", "reproduce", "help"] {
        assert!(listed.contains(&c), "{c} missing from {listed:?}");
    }
    // and each has a help page of its own naming its main option
    for (c, option) in [("count", "--max-discs"), ("perft", "--depth"), ("resume", "--threads"), ("inspect", "--json")]
    {
        let out = bin().args([c, "--help"]).output().unwrap();
        assert!(out.status.success());
        assert!(String::from_utf8_lossy(&out.stdout).contains(option), "{c} --help lacks {option}");
    }
}

/// `--version` names the commit of the build (what the long-run scripts
/// check before a run whose provenance it becomes), and it is the commit
/// the result files record.
#[test]
fn version_names_the_commit() {
    let out = bin().arg("--version").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let commit = text.trim().strip_prefix("othello-census ").and_then(|v| v.split_once(" (commit ")).map(|(_, c)| c);
    let commit = commit.and_then(|c| c.strip_suffix(')')).unwrap_or_else(|| panic!("{text}"));
    assert_eq!(commit, othello_census::COMMIT, "{text}");
}

/// `reachable` and `solve` take the board size from the position when
/// `--size` is not given (issue 52, item 11: their defaults were 8x8 and
/// 4x4, so a 6x6 position without --size was refused); a position of no
/// board size is refused in one line that says what it has.
#[test]
fn the_board_size_comes_from_the_position() {
    let six = "X----- ------ --OX-- --XO-- ------ ------ O";
    let out = bin().args(["reachable", "--position", six, "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["size"], 6);
    assert_eq!(doc["verdict"], "unreachable");
    let four = "-OOO XXXO -XO- ---- X";
    let out = bin().args(["solve", "--position", four, "--json", "-q"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let out = bin().args(["reachable", "--position", "XO-- O"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr_of(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("4 squares") && err.contains("16, 36 or 64"), "{err}");
    // --size still decides, and a position of another size is refused
    let out = bin().args(["reachable", "--size", "8", "--position", six]).output().unwrap();
    assert!(!out.status.success());
}
