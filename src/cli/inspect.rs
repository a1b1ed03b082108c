//! `othello-census inspect`.

use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::json;

use super::args::InspectArgs;
use othello_census::census::Counts;
use othello_census::formats::checkpoint::{FORMAT_VERSION, SectionCheck, Verified, key_width, verify};
use othello_census::report::files::timestamp;
use othello_census::report::group_digits;

pub fn run(a: &InspectArgs) -> anyhow::Result<ExitCode> {
    if file_magic(&a.file) == Some(othello_census::formats::framed::MAGIC_RESOLVE) {
        return inspect_progress(a);
    }
    if file_magic(&a.file) == Some(othello_census::formats::framed::MAGIC_ESTIMATE) {
        return inspect_estimate_progress(a);
    }
    if file_magic(&a.file) == Some(othello_census::formats::framed::MAGIC_CARRY) {
        return inspect_carry(a);
    }
    refuse_layered_file(a)?;
    let v = verify(&a.file)?;
    let h = &v.header;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let age = now.saturating_sub(h.saved_unix);
    let mut totals = Counts::default();
    for c in &h.layers {
        totals.add(c);
    }
    if a.json {
        crate::outln!("{}", serde_json::to_string_pretty(&checkpoint_json(a, &v, age, &totals))?)?;
    } else {
        print_checkpoint(a, &v, age, &totals)?;
    }
    if let SectionCheck::Failed(m) = &v.check {
        eprintln!("error: {m}");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// The first eight bytes of `path`, when it has them.
fn file_magic(path: &std::path::Path) -> Option<[u8; 8]> {
    let mut magic = [0u8; 8];
    std::fs::File::open(path).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic)).ok().map(|()| magic)
}

/// A resolve's progress file (`estimate --resolve --out DIR`): how many
/// samples it has decided again so far and what they came to, per layer,
/// so that an hours-long resolve can be watched without stopping it.
fn inspect_progress(a: &InspectArgs) -> anyhow::Result<ExitCode> {
    let p = othello_census::estimate::read_progress_file(&a.file)?;
    // layer -> (reachable, unreachable, still undecided)
    let mut layers = std::collections::BTreeMap::<u32, [u64; 3]>::new();
    for d in &p.done {
        let row = layers.entry(d.discs).or_default();
        row[0] += d.tally.reachable;
        row[1] += d.tally.unreachable;
        row[2] += d.tally.undecided;
    }
    let total = layers.values().fold([0u64; 3], |t, r| [t[0] + r[0], t[1] + r[1], t[2] + r[2]]);
    if a.json {
        let rows: Vec<serde_json::Value> = layers
            .iter()
            .map(|(l, r)| json!({"discs": l, "reachable": r[0], "unreachable": r[1], "undecided": r[2]}))
            .collect();
        let doc = json!({
            "file": a.file.display().to_string(),
            "kind": "resolve progress",
            "resolve_id": format!("{:016x}", p.id.0),
            "samples_done": p.done.len(),
            "samples_waiting_for_the_second_round": p.deferred.len(),
            "reachable": total[0],
            "unreachable": total[1],
            "undecided": total[2],
            "layers": rows,
        });
        crate::outln!("{}", serde_json::to_string_pretty(&doc)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    crate::outln!(
        "resolve progress file {} (resolve {:016x}, checksum ok)\n\
         {} samples searched again so far: {} reachable, {} unreachable, {} still undecided",
        a.file.display(),
        p.id.0,
        group_digits(p.done.len() as u64),
        group_digits(total[0]),
        group_digits(total[1]),
        group_digits(total[2])
    )?;
    if !p.deferred.is_empty() {
        crate::outln!(
            "{} more left by a first round (--exact-first) for the second, at the resolve's own limits",
            group_digits(p.deferred.len() as u64)
        )?;
    }
    crate::outln!("discs  reachable  unreachable  undecided")?;
    for (l, r) in &layers {
        crate::outln!("{l:>5}  {:>9}  {:>11}  {:>9}", r[0], r[1], r[2])?;
    }
    Ok(ExitCode::SUCCESS)
}

/// An exact search's carry file (`estimate --resolve --carry-exact`):
/// its position, the conflicts its searches spent, and what it keeps.
fn inspect_carry(a: &InspectArgs) -> anyhow::Result<ExitCode> {
    let (black, white, black_to_move, c) = othello_census::estimate::CarryDir::read_any(&a.file)?;
    let side = if black_to_move { "Black" } else { "White" };
    if a.json {
        let doc = json!({
            "file": a.file.display().to_string(),
            "kind": "exact search carry",
            "black": format!("{black:016x}"),
            "white": format!("{white:016x}"),
            "to_move": side,
            "discs": (black | white).count_ones(),
            "conflicts_without_passes": c.first_spent,
            "conflicts_with_passes": c.passes_spent,
            "clauses": c.clause_count(),
            "words": c.clauses.len(),
            "longest_clause_kept_next": c.keep_len,
            "formula_fingerprint": format!("{:016x}", c.fingerprint),
        });
        crate::outln!("{}", serde_json::to_string_pretty(&doc)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    crate::outln!(
        "carry file of an exact search {} (checksum ok)\n\
         position: black {black:016x}, white {white:016x}, {side} to move ({} discs)\n\
         conflicts spent: {} by the formula without passes, {} by the formula with passes in all its searches\n\
         kept: {} clauses ({} words); the next search keeps clauses of at most {} literals",
        a.file.display(),
        (black | white).count_ones(),
        group_digits(c.first_spent),
        group_digits(c.passes_spent),
        group_digits(c.clause_count() as u64),
        group_digits(c.clauses.len() as u64),
        c.keep_len
    )?;
    Ok(ExitCode::SUCCESS)
}

/// An estimate's progress file (`estimate --out DIR`): its samples so
/// far, per layer, and how long it has run, so that a long unit can be
/// watched, or looked at before it goes on.
fn inspect_estimate_progress(a: &InspectArgs) -> anyhow::Result<ExitCode> {
    let p = othello_census::estimate::read_estimate_progress_file(&a.file)?;
    let row = |l: &othello_census::estimate::LayerProgress| {
        [l.tally.samples, l.tally.reachable, l.tally.unreachable, l.tally.undecided]
    };
    if a.json {
        let rows: Vec<serde_json::Value> = p
            .layers
            .iter()
            .map(|l| {
                let r = row(l);
                json!({"discs": l.discs, "samples": r[0], "reachable": r[1], "unreachable": r[2], "undecided": r[3],
                       "untried": l.undecided.iter().filter(|u| u.1).count(), "round_end": l.round_end})
            })
            .collect();
        let doc = json!({
            "file": a.file.display().to_string(),
            "kind": "estimate progress",
            "estimate_id": format!("{:016x}", p.id.0),
            "samples": p.samples(),
            "rounds": p.rounds,
            "in_round": p.in_round(),
            "elapsed_seconds": p.elapsed_seconds,
            "layers": rows,
        });
        crate::outln!("{}", serde_json::to_string_pretty(&doc)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    crate::outln!(
        "estimate progress file {} (estimate {:016x}, checksum ok)\n\
         {} samples in {} rounds{}, {:.0} s run so far",
        a.file.display(),
        p.id.0,
        group_digits(p.samples()),
        p.rounds,
        if p.in_round() { " (the last one under way)" } else { "" },
        p.elapsed_seconds
    )?;
    crate::outln!("discs    samples  reachable  unreachable  undecided")?;
    for l in &p.layers {
        let r = row(l);
        crate::outln!("{:>5}  {:>9}  {:>9}  {:>11}  {:>9}", l.discs, r[0], r[1], r[2], r[3])?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A file of a layered run given instead of a checkpoint: says what it is
/// and where its run is.
fn refuse_layered_file(a: &InspectArgs) -> anyhow::Result<()> {
    if let Some(magic) = file_magic(&a.file)
        && magic != othello_census::formats::framed::MAGIC_CHECKPOINT
        && let Some(kind) = othello_census::formats::framed::kind_of_magic(&magic)
    {
        let run = a.file.ancestors().skip(1).find(|d| d.join("run.manifest").is_file());
        match run {
            Some(dir) => anyhow::bail!(
                "{} is a {kind}, not a DFS checkpoint; inspect its run, which checks every file of it: \
                 `othello-census inspect {}`",
                a.file.display(),
                othello_census::text::shell_path(dir)
            ),
            None => anyhow::bail!(
                "{} is a {kind}, not a DFS checkpoint, and no run.manifest is beside it: inspect the run's work \
                 directory",
                a.file.display()
            ),
        }
    }
    Ok(())
}

/// The JSON document of a checkpoint.
fn checkpoint_json(a: &InspectArgs, v: &Verified, age: u64, totals: &Counts) -> serde_json::Value {
    let h = &v.header;
    json!({
        "file": a.file.display().to_string(),
        "format_version": FORMAT_VERSION,
        "bytes": v.bytes,
        "checksums_ok": v.check == SectionCheck::Ok,
        "problem": match &v.check { SectionCheck::Ok => None, SectionCheck::Failed(m) => Some(m.clone()) },
        "software": h.software,
        "size": h.size,
        "rules": h.rules,
        "engine": h.engine,
        "max_discs": h.max_discs,
        "memory_limit": h.memory_limit,
        "threads": h.threads,
        "command": h.command,
        "started_unix": h.started_unix,
        "saved_unix": h.saved_unix,
        "age_seconds": age,
        "elapsed_seconds": h.elapsed_seconds,
        "classes_expanded": totals.classes,
        "positions_expanded": totals.positions,
        "explored": h.explored,
        "repeated": h.repeated,
        "cache_keys": h.cache_len,
        "cache_bytes_in_file": h.cache_len * key_width(h.size) as u64,
        "stack_depths": h.stack_lens,
        "waiting": h.stack_lens.iter().sum::<u64>(),
    })
}

/// A checkpoint described in words.
fn print_checkpoint(a: &InspectArgs, v: &Verified, age: u64, totals: &Counts) -> anyhow::Result<()> {
    let h = &v.header;
    let stacks_total: u64 = h.stack_lens.iter().sum();
    let depths: Vec<String> = h.stack_lens.iter().map(|d| group_digits(*d)).collect();
    crate::outln!(
        "checkpoint {}\n\
         format version {FORMAT_VERSION}, {} bytes, written by {}\n\
         census: {}x{} {} engine, {} rules, layers 4..={} discs, memory limit {}, {}\n\
         command: {}\n\
         started {}, saved {} ({} s ago), {:.1} s of work so far\n\
         expanded: {} classes ({} positions); explored {}, repeated {}\n\
         cache: {} keys; waiting: {} positions on stacks [{}] (last: shared pool)\n\
         checksums: {}",
        a.file.display(),
        group_digits(v.bytes),
        h.software,
        h.size,
        h.size,
        h.engine,
        h.rules,
        h.max_discs,
        othello_census::text::human_bytes(h.memory_limit as f64),
        othello_census::text::plural(h.threads, "thread"),
        h.command,
        timestamp(h.started_unix),
        timestamp(h.saved_unix),
        age,
        h.elapsed_seconds,
        group_digits(totals.classes),
        group_digits(totals.positions),
        group_digits(h.explored),
        group_digits(h.repeated),
        group_digits(h.cache_len),
        group_digits(stacks_total),
        depths.join(", "),
        match &v.check {
            SectionCheck::Ok => "ok".to_string(),
            SectionCheck::Failed(m) => format!("FAILED: {m}"),
        }
    )?;
    Ok(())
}
