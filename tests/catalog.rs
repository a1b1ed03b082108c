//! The catalogue and the plot through the binary: real runs go in, the
//! tables equal the runs, and incomplete or inconsistent runs are refused
//! with nothing written.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{bin, fails_with};
use serde_json::Value;

/// Runs `count` with `args`; returns the path of its JSON result.
fn result_of(dir: &Path, out: &str, args: &[&str]) -> PathBuf {
    let status = Command::new(bin()).args(["count", "-q", "--out", out]).args(args).current_dir(dir).status().unwrap();
    assert!(status.success(), "{args:?}");
    let json = std::fs::read_dir(dir.join(out)).unwrap().flatten().map(|e| e.path());
    json.into_iter().find(|p| p.extension().is_some_and(|e| e == "json")).unwrap()
}

fn add(dir: &Path, runs: &[&Path]) -> std::process::Output {
    Command::new(bin()).args(["catalog", "add", "--new", "--dir", "cat"]).args(runs).current_dir(dir).output().unwrap()
}

#[test]
fn runs_enter_the_catalogue_and_the_tables_equal_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let dfs = result_of(d, "a", &["--size", "4"]);
    let lay = result_of(d, "b", &["--engine", "layers", "--size", "4", "--work-dir", "w1"]);
    let ply =
        result_of(d, "c", &["--engine", "layers", "--size", "8", "--by", "ply", "--plies", "8", "--work-dir", "w2"]);
    let out = add(d, &[&dfs, &lay, &ply]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = std::fs::read_to_string(d.join("cat/4x4-by-discs.csv")).unwrap();
    let run: Value = serde_json::from_str(&std::fs::read_to_string(&lay).unwrap()).unwrap();
    let header: Vec<&str> = csv.lines().find(|l| !l.starts_with('#')).unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no column {name}"));
    let rows: Vec<&str> = csv.lines().filter(|l| !l.starts_with('#')).skip(1).collect();
    assert_eq!(rows.len(), 13);
    for (row, layer) in rows.iter().zip(run["layers"].as_array().unwrap()) {
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!(cells[0], layer["layer"].to_string());
        for name in ["positions", "boards", "terminal_black_wins", "terminal_draws", "terminal_white_wins", "games"] {
            assert_eq!(cells[col(name)], layer[name].to_string(), "{name}");
        }
        assert_eq!(cells[col("games_ended")], layer["games_ended"].to_string());
        // both engines gave it, the oracle tests cover it, it is published
        let checks = cells[col("checks")];
        assert!(checks.contains("engines") && checks.contains("oracle") && checks.contains("published"));
    }
    // by discs, no by-ply column (games including ended ones, passes
    // entering a layer)
    let header = csv.lines().find(|l| !l.starts_with('#')).unwrap();
    assert!(header.ends_with(",games,games_ended,positions_unique,shapes,shapes_unique,checks,runs"), "{header}");
    let by_ply = std::fs::read_to_string(d.join("cat/8x8-by-ply.csv")).unwrap();
    let header = by_ply.lines().find(|l| !l.starts_with('#')).unwrap();
    assert!(
        header.ends_with(
            ",games,games_including_ended,games_passes,games_ended,positions_unique,shapes,shapes_unique,checks,runs"
        ),
        "{header}"
    );
    assert!(by_ply.lines().any(|l| l.starts_with("8,269352,") && l.contains("perft")), "{by_ply}");
    let readme = std::fs::read_to_string(d.join("cat/README.md")).unwrap();
    for r in [&dfs, &lay, &ply] {
        assert!(readme.contains(&*r.file_stem().unwrap().to_string_lossy()));
    }
    // the plot is a valid SVG with lines, from `catalog add` and from `plot`
    let out = Command::new(bin()).args(["plot", "--dir", "cat", "--out", "p.svg"]).current_dir(d).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for svg in ["cat/census.svg", "p.svg"] {
        let text = std::fs::read_to_string(d.join(svg)).unwrap();
        assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"), "{svg}");
        assert!(text.matches("<polyline").count() + text.matches("<path").count() >= 6, "{svg}");
    }
    // a run cannot be added twice
    fails_with(d, &["catalog", "add", "--new", "--dir", "cat", &dfs.to_string_lossy()], "in the catalogue already");
}

#[test]
fn incomplete_or_inconsistent_runs_are_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good =
        result_of(d, "a", &["--engine", "layers", "--size", "8", "--by", "ply", "--plies", "7", "--work-dir", "w"]);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&good).unwrap()).unwrap();
    // each variant sealed again (a forger can compute the checksum): the
    // checks of its counts must find it
    let variant = |name: &str, f: &dyn Fn(&mut Value)| {
        let mut v = doc.clone();
        f(&mut v);
        othello_census::report::seal::seal(&mut v);
        let p = d.join(name);
        std::fs::write(&p, serde_json::to_string(&v).unwrap()).unwrap();
        p.to_string_lossy().into_owned()
    };
    // a run whose layers stop before its limit
    let cut = variant("cut.json", &|v| {
        v["layers"].as_array_mut().unwrap().pop();
    });
    fails_with(d, &["catalog", "add", "--new", "--dir", "cat", &cut], "incomplete");
    // a count that disagrees with perft and with OEIS A124004
    let games = variant("games.json", &|v| {
        v["layers"][5]["games"] = Value::from(v["layers"][5]["games"].as_u64().unwrap() + 1);
        v["layers"][5]["games_including_ended"] =
            Value::from(v["layers"][5]["games_including_ended"].as_u64().unwrap() + 1);
    });
    fails_with(d, &["catalog", "add", "--new", "--dir", "cat", &games], "published value");
    // a count that no published value covers but perft does
    let passes = variant("passes.json", &|v| {
        v["layers"][5]["games_passes"] = Value::from(v["layers"][5]["games_passes"].as_u64().unwrap() + 1);
    });
    fails_with(d, &["catalog", "add", "--new", "--dir", "cat", &passes], "perft");
    // counts inconsistent with one another
    let odd = variant("odd.json", &|v| v["layers"][3]["boards"] = Value::from(1_000_000u64));
    fails_with(d, &["catalog", "add", "--new", "--dir", "cat", &odd], "inconsistent");
    // results of the terminal positions that do not add up to them
    let results = variant("results.json", &|v| v["layers"][2]["terminal_draws"] = Value::from(3u64));
    fails_with(d, &["catalog", "add", "--new", "--dir", "cat", &results], "do not add up");
    // a gap in the layers
    let gap = variant("gap.json", &|v| {
        v["layers"].as_array_mut().unwrap().remove(3);
    });
    fails_with(d, &["catalog", "add", "--new", "--dir", "cat", &gap], "not contiguous");
    // positions by games that do not add up to the layer's positions
    let spread = variant("spread.json", &|v| {
        // the bucket itself consistent: one game a position
        for f in ["positions", "games"] {
            let bucket = &mut v["layers"][4]["positions_by_games"]["1"][f];
            *bucket = Value::from(bucket.as_u64().unwrap() + 1);
        }
    });
    fails_with(d, &["catalog", "add", "--new", "--dir", "cat", &spread], "positions by games do not add up");
    // more games ending in a layer than reach it
    let ended = variant("ended.json", &|v| {
        v["layers"][6]["games_ended"] = Value::from(v["layers"][6]["games"].as_u64().unwrap() + 1);
    });
    fails_with(d, &["catalog", "add", "--new", "--dir", "cat", &ended], "game counts are inconsistent");
    // totals that are not the sums of the layers
    let totals = variant("totals.json", &|v| {
        v["totals"]["boards"] = Value::from(v["totals"]["boards"].as_u64().unwrap() + 1);
    });
    fails_with(d, &["catalog", "add", "--new", "--dir", "cat", &totals], "totals.boards is not the sum");
    // a run that says it is complete while its last layer has moves
    let complete = variant("complete.json", &|v| v["complete"] = Value::from(true));
    fails_with(d, &["catalog", "add", "--new", "--dir", "cat", &complete], "completeness flag disagrees");
    // not a result file at all
    let other = variant("other.json", &|v| v["schema"] = Value::from("something else"));
    fails_with(d, &["catalog", "add", "--new", "--dir", "cat", &other], "not a finished run");
    assert!(!d.join("cat").exists(), "nothing was written");

    // a row that disagrees with the catalogue: the good run goes in, then a
    // run that differs in one count (and is otherwise consistent) is refused
    let out = add(d, &[&good]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let before = std::fs::read(d.join("cat/catalog.json")).unwrap();
    let conflict = variant("conflict.json", &|v| {
        v["layers"][6]["classes"] = Value::from(v["layers"][6]["classes"].as_u64().unwrap() + 1);
        v["totals"]["classes"] = Value::from(v["totals"]["classes"].as_u64().unwrap() + 1);
    });
    let out = add(d, &[Path::new(&conflict)]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("layer 6") && err.contains("nothing was added"), "{err}");
    assert_eq!(std::fs::read(d.join("cat/catalog.json")).unwrap(), before, "the catalogue is unchanged");
}

/// The game columns by ply: `games` is OEIS A124004 (finished games
/// dropped), `games_including_ended` keeps counting them. A run whose two
/// columns are swapped is refused; a result of the old schema (which called
/// the second column `games_a124004`) and a catalogue of the old version are
/// read with the column mapped to its new name.
#[test]
fn game_columns_by_ply_are_held_to_their_published_conventions() {
    use othello_census::published::{GAMES_4X4, GAMES_INCLUDING_ENDED_4X4};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = result_of(d, "a", &["--engine", "layers", "--size", "4", "--by", "ply", "--work-dir", "w"]);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&good).unwrap()).unwrap();
    assert_eq!(doc["schema_version"], othello_census::report::census::SCHEMA_VERSION);
    let col = |v: &Value, name: &str| -> Vec<u128> {
        v["layers"].as_array().unwrap().iter().take(17).map(|l| l[name].as_u64().unwrap() as u128).collect()
    };
    assert_eq!(col(&doc, "games"), GAMES_4X4);
    assert_eq!(col(&doc, "games_including_ended"), GAMES_INCLUDING_ENDED_4X4);
    assert!(doc["conventions"]["games"].as_str().unwrap().contains("A124004"));
    assert!(doc["conventions"]["games_including_ended"].as_str().unwrap().contains("not an OEIS"));
    let csv = std::fs::read_to_string(good.with_extension("csv")).unwrap();
    assert!(csv.lines().any(|l| l.starts_with("# games: ") && l.contains("A124004")), "{csv}");

    let write = |name: &str, v: &Value| {
        let mut v = v.clone();
        othello_census::report::seal::seal(&mut v);
        let p = d.join(name);
        std::fs::write(&p, serde_json::to_string(&v).unwrap()).unwrap();
        p.to_string_lossy().into_owned()
    };
    // swapped columns (totals untouched: they hold no such column)
    let mut swapped = doc.clone();
    for l in swapped["layers"].as_array_mut().unwrap() {
        let (a, b) = (l["games"].clone(), l["games_including_ended"].clone());
        l["games"] = b;
        l["games_including_ended"] = a;
    }
    let swapped = write("swapped.json", &swapped);
    fails_with(d, &["catalog", "add", "--new", "--dir", "cat", &swapped], "published value");
    assert!(!d.join("cat").exists(), "nothing was written");

    // a result of schema 2, where the column was called games_a124004
    let mut old = doc.clone();
    old["schema_version"] = Value::from(2);
    for l in old["layers"].as_array_mut().unwrap() {
        let v = l.as_object_mut().unwrap().remove("games_including_ended").unwrap();
        l["games_a124004"] = v;
    }
    let old = write("old.json", &old);
    let out = add(d, &[Path::new(&old)]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let table = std::fs::read_to_string(d.join("cat/4x4-by-ply.csv")).unwrap();
    assert!(!table.contains("a124004"), "{table}");
    let header: Vec<&str> = table.lines().find(|l| !l.starts_with('#')).unwrap().split(',').collect();
    let at = header.iter().position(|h| *h == "games_including_ended").unwrap();
    let checks = header.iter().position(|h| *h == "checks").unwrap();
    for row in table.lines().filter(|l| !l.starts_with('#')).skip(1).take(17) {
        let cells: Vec<&str> = row.split(',').collect();
        let ply: usize = cells[0].parse().unwrap();
        assert_eq!(cells[at], GAMES_INCLUDING_ENDED_4X4[ply].to_string());
        assert!(cells[checks].contains("published"), "{row}");
    }

    // a catalogue of version 1 (the old column name) is read and rewritten
    let mut cat: Value = serde_json::from_str(&std::fs::read_to_string(d.join("cat/catalog.json")).unwrap()).unwrap();
    cat["schema_version"] = Value::from(1);
    for row in cat["tables"]["4x4-by-ply"].as_array_mut().unwrap() {
        let v = row.as_object_mut().unwrap().remove("games_including_ended").unwrap();
        row["games_a124004"] = v;
    }
    std::fs::write(d.join("cat/catalog.json"), serde_json::to_string(&cat).unwrap()).unwrap();
    std::fs::remove_file(d.join("cat/4x4-by-ply.csv")).unwrap();
    let out = Command::new(bin()).args(["catalog", "regenerate", "--dir", "cat"]).current_dir(d).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(d.join("cat/4x4-by-ply.csv")).unwrap(), table);
    let cat = std::fs::read_to_string(d.join("cat/catalog.json")).unwrap();
    assert!(!cat.contains("a124004") && cat.contains("\"schema_version\": 2"));
    // regenerating a catalogue that is not there is an error
    fails_with(d, &["catalog", "regenerate", "--dir", "nowhere"], "no catalogue");
}

/// A run is known by its content, not its file name: a copy is refused.
/// A missing catalogue directory is an error for `plot`, and for `catalog
/// add` unless a new catalogue is asked for.
#[test]
fn copies_and_missing_catalogues_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = result_of(d, "a", &["--size", "4"]);
    let copy = d.join("copy.json");
    std::fs::copy(&run, &copy).unwrap();
    fails_with(d, &["catalog", "add", "--dir", "cat", &run.to_string_lossy()], "add --new");
    assert!(!d.join("cat").exists());
    fails_with(d, &["plot", "--dir", "nowhere"], "holds no catalogue");
    let out = add(d, &[&run]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let before = std::fs::read(d.join("cat/catalog.json")).unwrap();
    fails_with(d, &["catalog", "add", "--dir", "cat", &copy.to_string_lossy()], "in the catalogue already as");
    assert_eq!(std::fs::read(d.join("cat/catalog.json")).unwrap(), before);
    // a catalogue whose run records are malformed is refused in one line,
    // and left as it is
    let mut doc: serde_json::Value = serde_json::from_slice(&before).unwrap();
    doc["runs"][0]["threads"] = serde_json::Value::from("two");
    let bad = serde_json::to_vec_pretty(&doc).unwrap();
    std::fs::write(d.join("cat/catalog.json"), &bad).unwrap();
    fails_with(d, &["catalog", "regenerate", "--dir", "cat"], "a run of the catalogue is malformed");
    assert_eq!(std::fs::read(d.join("cat/catalog.json")).unwrap(), bad);
}

/// `catalog oeis` writes the b-files of the 8x8 by-ply terms from the
/// catalogue alone: `n a(n)` lines equal to the catalogue's rows, a header
/// naming the runs, the same bytes when written again.
#[test]
fn oeis_bfiles_come_from_the_catalogue() {
    use othello_census::published::{A124004, A124005, A124006, A125528, A125529};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ply =
        result_of(d, "a", &["--engine", "layers", "--size", "8", "--by", "ply", "--plies", "9", "--work-dir", "w"]);
    let out = add(d, &[&ply]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let oeis =
        |d: &Path| Command::new(bin()).args(["catalog", "oeis", "--dir", "cat"]).current_dir(d).output().unwrap();
    assert!(oeis(d).status.success());
    let read = |name: &str| std::fs::read_to_string(d.join("cat/oeis").join(name)).unwrap();
    let terms = |text: &str| -> Vec<(u32, u128)> {
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| {
                let (n, v) = l.split_once(' ').unwrap();
                (n.parse().unwrap(), v.parse().unwrap())
            })
            .collect()
    };
    let first = (read("b124004.txt"), read("b124005.txt"), read("b124006.txt"));
    assert_eq!(terms(&first.0), (0..=9).map(|n| (n, A124004[n as usize])).collect::<Vec<_>>());
    assert_eq!(terms(&first.1), (1..=9).map(|n| (n, A124005[n as usize])).collect::<Vec<_>>());
    assert_eq!(terms(&first.2), (1..=9).map(|n| (n, A124006[n as usize - 1])).collect::<Vec<_>>());
    let stem = ply.file_stem().unwrap().to_string_lossy().into_owned();
    assert!(first.2.starts_with("# A124006: ") && first.2.contains(&format!("# a(9): {stem}")), "{}", first.2);
    // the shape sequences too
    let shapes = (read("b125528.txt"), read("b125529.txt"));
    assert_eq!(terms(&shapes.0), (1..=9).map(|n| (n, A125528[n as usize - 1])).collect::<Vec<_>>());
    assert_eq!(terms(&shapes.1), (1..=9).map(|n| (n, A125529[n as usize - 1])).collect::<Vec<_>>());
    // written again from the same catalogue: the same bytes
    assert!(oeis(d).status.success());
    assert_eq!((read("b124004.txt"), read("b124005.txt"), read("b124006.txt")), first);
    fails_with(d, &["catalog", "oeis", "--dir", "nowhere"], "holds no catalogue");
}

/// A run computed by a build with uncommitted changes is catalogued with a
/// warning that says so (its commit cannot rebuild its binary); a clean
/// run's adding warns of nothing.
#[test]
fn runs_of_dirty_builds_are_added_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = result_of(d, "a", &["--size", "4"]);
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&run).unwrap()).unwrap();
    doc["commit"] = Value::from("0123456789ab-dirty");
    othello_census::report::seal::seal(&mut doc);
    let dirty = d.join("dirty.json");
    std::fs::write(&dirty, serde_json::to_string(&doc).unwrap()).unwrap();
    doc["commit"] = Value::from("0123456789ab");
    othello_census::report::seal::seal(&mut doc);
    let clean = d.join("clean.json");
    std::fs::write(&clean, serde_json::to_string(&doc).unwrap()).unwrap();
    let out = add(d, &[&clean]);
    assert!(out.status.success() && !String::from_utf8_lossy(&out.stderr).contains("warning"));
    let out = add(d, &[&dirty]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("warning: ") && err.contains("0123456789ab-dirty") && err.contains("uncommitted"), "{err}");
}

/// Issue 52, item 1: adds into one catalogue at once all land. Each
/// process reads catalog.json and replaces it; without a lock a later one
/// replaced the catalogue with one read before an earlier one's run was in
/// it, and every process still said "added".
#[test]
fn concurrent_adds_all_land() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = result_of(d, "a", &["--size", "4"]);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&run).unwrap()).unwrap();
    // distinct runs (another wall time each), one file each
    const N: usize = 12;
    let files: Vec<PathBuf> = (0..N)
        .map(|i| {
            let mut v = doc.clone();
            v["elapsed_seconds"] = Value::from(1.0 + i as f64);
            othello_census::report::seal::seal(&mut v);
            let p = d.join(format!("run-{i}.json"));
            std::fs::write(&p, serde_json::to_string(&v).unwrap()).unwrap();
            p
        })
        .collect();
    let children: Vec<_> = files
        .iter()
        .map(|p| {
            Command::new(bin())
                .args(["catalog", "add", "--new", "--dir", "cat"])
                .arg(p)
                .current_dir(d)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (c, p) in children.into_iter().zip(&files) {
        let out = c.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert!(err.contains(&format!("{}: added to 4x4-by-discs", p.display())), "{err}");
    }
    let cat: Value = serde_json::from_str(&std::fs::read_to_string(d.join("cat/catalog.json")).unwrap()).unwrap();
    let mut ids: Vec<&str> = cat["runs"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    ids.sort_unstable();
    let mut want: Vec<String> = (0..N).map(|i| format!("run-{i}")).collect();
    want.sort_unstable();
    assert_eq!(ids, want, "every run is catalogued");
    // every row names every run
    let row = &cat["tables"]["4x4-by-discs"][0];
    assert_eq!(row["runs"].as_array().unwrap().len(), N);
    // nothing left beside the catalogue's own files: no lock, no temporary
    let mut left: Vec<String> =
        std::fs::read_dir(d.join("cat")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
    left.sort_unstable();
    assert_eq!(left, ["4x4-by-discs.csv", "README.md", "catalog.json", "census.svg"]);
}

/// A refused `catalog add --new` leaves no catalogue directory behind and
/// says no "added" for the run that passed before the refusal.
#[test]
fn a_refused_add_says_nothing_was_added() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = result_of(d, "a", &["--size", "4"]);
    std::fs::write(d.join("bad.json"), "{}").unwrap();
    let out = Command::new(bin())
        .args(["catalog", "add", "--new", "--dir", "cat"])
        .arg(&run)
        .arg("bad.json")
        .current_dir(d)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.starts_with("error: bad.json"), "{err}");
    assert!(!d.join("cat").exists());
}

/// A catalogue holding an estimate this build cannot check (here one
/// whose interval was edited by hand) is refused in one line, and nothing
/// is written: before, the document dropped out of the pooled tables
/// without a word.
#[test]
fn a_catalogue_with_an_estimate_that_no_longer_checks_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cat = dir.path().join("cat");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/catalog.json");
    std::fs::create_dir(&cat).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(repo).unwrap()).unwrap();
    let layer = &mut doc["estimates"][0]["layers"][0]["positions"]["estimate"];
    *layer = serde_json::json!(layer.as_f64().unwrap() + 1.0);
    let text = serde_json::to_string(&doc).unwrap();
    std::fs::write(cat.join("catalog.json"), &text).unwrap();
    let out = Command::new(bin()).args(["catalog", "regenerate", "--dir"]).arg(&cat).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no longer checks") && err.contains("nothing is written"), "{err}");
    assert_eq!(std::fs::read_to_string(cat.join("catalog.json")).unwrap(), text);
    assert_eq!(std::fs::read_dir(&cat).unwrap().count(), 1, "only catalog.json");
}

/// Issue 52, item 7: a result or estimate document edited after it was
/// written is refused in one line, nothing written. An edit that keeps the
/// counts consistent is found by the checksum (version 4 results, version
/// 3 estimates); one whose checksum was computed again, by the documents'
/// invariants (the start layer, the positions by games, the totals). The
/// same finished run reported again by `resume` (a `-2` file) is not a
/// second run. A document of an older version, without a checksum, is
/// added with a one-line warning.
#[test]
fn edited_documents_and_runs_reported_again_are_refused() {
    use othello_census::report::seal::seal;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cat = |files: &[&Path]| add(d, files);
    let ply =
        result_of(d, "a", &["--engine", "layers", "--size", "8", "--by", "ply", "--plies", "7", "--work-dir", "w"]);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&ply).unwrap()).unwrap();
    let write = |name: &str, v: &Value| {
        let p = d.join(name);
        std::fs::write(&p, serde_json::to_string_pretty(v).unwrap()).unwrap();
        p.to_string_lossy().into_owned()
    };
    let refused = |file: &str, needle: &str| {
        fails_with(d, &["catalog", "add", "--new", "--dir", "cat", file], needle);
        assert!(!d.join("cat").exists(), "nothing was written");
    };
    // +1 to a count no check relates to another (each of them was accepted
    // on 51dd78d): the checksum finds it
    let discs = result_of(d, "b", &["--engine", "layers", "--size", "4", "--work-dir", "w2"]);
    let by_discs: Value = serde_json::from_str(&std::fs::read_to_string(&discs).unwrap()).unwrap();
    // (places in the 4x4 run's layers: 12 discs, 13, 10)
    for (layer, field) in [(8, "pass_classes"), (9, "terminal_classes"), (6, "shapes")] {
        let mut v = by_discs.clone();
        v["layers"][layer][field] = Value::from(v["layers"][layer][field].as_u64().unwrap() + 1);
        if let Some(t) = v["totals"][field].as_u64() {
            v["totals"][field] = Value::from(t + 1);
        }
        refused(&write("plus1.json", &v), "was edited");
    }
    // the checksum removed from a version 4 document
    let mut v = doc.clone();
    v.as_object_mut().unwrap().remove("checksum");
    refused(&write("bare.json", &v), "no checksum");
    // sealed again: the start layer has one game and no pass
    let mut v = doc.clone();
    v["layers"][0]["games_passes"] = Value::from(1);
    seal(&mut v);
    refused(&write("start.json", &v), "start layer");
    // by discs, the games of the positions reached by one game are those
    // positions (by ply the layer's games also bound them)
    let mut v = by_discs.clone();
    let g = &mut v["layers"][5]["positions_by_games"]["1"]["games"];
    *g = Value::from(g.as_u64().unwrap() + 1);
    seal(&mut v);
    refused(&write("bucket.json", &v), "bucket 1");
    // a totals' count that is not its column's sum
    let mut v = doc.clone();
    v["totals"]["pass_classes"] = Value::from(v["totals"]["pass_classes"].as_u64().unwrap() + 1);
    seal(&mut v);
    refused(&write("totals.json", &v), "totals.pass_classes");

    // estimates: a changed seed (one run pooled twice), totals edited
    let est = Command::new(bin())
        .args(["estimate", "--size", "4", "--discs", "10-12", "--samples", "2000", "--seed", "5", "-q", "--json"])
        .current_dir(d)
        .output()
        .unwrap();
    assert!(est.status.success());
    let e: Value = serde_json::from_slice(&est.stdout).unwrap();
    let mut v = e.clone();
    v["seed"] = Value::from(6);
    refused(&write("seed.json", &v), "was edited");
    let mut v = e.clone();
    v["totals"]["positions"]["estimate"] = Value::from(1e6);
    seal(&mut v);
    refused(&write("est-totals.json", &v), "totals' intervals");

    // the finished layered run reported again by resume: the same run
    // (into another --out: into its own, the result written before is
    // named instead)
    let again = Command::new(bin()).args(["resume", "w2", "-q", "--out", "b2"]).current_dir(d).output().unwrap();
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    let second = std::fs::read_dir(d.join("b2"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .expect("a second result");
    // (named apart from the first, which it is named like within the same second)
    let renamed = second.with_file_name("4x4-layers-resumed.json");
    std::fs::rename(&second, &renamed).unwrap();
    let second = renamed;
    let out = cat(&[&discs]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let before = std::fs::read(d.join("cat/catalog.json")).unwrap();
    fails_with(d, &["catalog", "add", "--dir", "cat", &second.to_string_lossy()], "reported again by resume");
    assert_eq!(std::fs::read(d.join("cat/catalog.json")).unwrap(), before);

    // a version 3 document (no checksum) is added, with one warning line
    let mut old = doc.clone();
    old.as_object_mut().unwrap().remove("checksum");
    old["schema_version"] = Value::from(3);
    let old = write("old.json", &old);
    let out = Command::new(bin()).args(["catalog", "add", "--dir", "cat", &old]).current_dir(d).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // (a build with local changes warns of that too)
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning: ") && l.contains("checksum")).collect();
    assert!(warnings.len() == 1 && warnings[0].contains("before result documents carried a checksum"), "{err}");

    // the catalogue's load finds an estimate of version 3 edited inside it
    let out = Command::new(bin())
        .args(["catalog", "add", "--dir", "cat", &write("est.json", &e)])
        .current_dir(d)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut c: Value = serde_json::from_slice(&std::fs::read(d.join("cat/catalog.json")).unwrap()).unwrap();
    assert!(c["estimates"][0]["checksum"].is_string());
    c["estimates"][0]["seed"] = Value::from(99);
    let text = serde_json::to_string_pretty(&c).unwrap();
    std::fs::write(d.join("cat/catalog.json"), &text).unwrap();
    fails_with(d, &["catalog", "regenerate", "--dir", "cat"], "was edited");
    assert_eq!(std::fs::read_to_string(d.join("cat/catalog.json")).unwrap(), text);
}
