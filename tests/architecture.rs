//! No import circle in `src/`: within every module directory, the modules
//! that sit side by side (its files and its subdirectories) depend on each
//! other one way only.
//!
//! A module depends on a sibling when any of its files names the sibling
//! through `crate::...`, `super::...` or `self::...`, in a `use` or in a
//! qualified path in code (`super::progress::write(..)`), test modules
//! included. A name the directory's `mod.rs` re-exports (`pub use
//! workdir::WorkDir`) counts as the sibling it comes from; the items the
//! `mod.rs` defines itself (the directory's shared vocabulary, such as
//! `LayersError`) are no sibling. The check reads the source with a small
//! scanner (comments and literals skipped), not the compiler, so it needs
//! no tool beyond `cargo test`.
//!
//! Rooms of one concept: no `impl` block in `src/` over 250 lines, and a
//! file over 800 lines says in a first `//!` comment which one concept it
//! holds; the files still owed are listed in `OWED`, with what they hold.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A module path from the crate root (`["engine", "layers", "store"]`).
type ModPath = Vec<String>;

/// One dependency of a sibling on another, and where it is written.
#[derive(Clone, Debug)]
struct Edge {
    from: String,
    to: String,
    /// `file:line: path`, of the first place that makes the edge.
    at: String,
}

/// The source files of the library under `src`: each with its module path
/// (`main.rs`, another crate, is left out).
fn modules(src: &Path) -> Vec<(PathBuf, ModPath)> {
    fn walk(dir: &Path, path: &ModPath, out: &mut Vec<(PathBuf, ModPath)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                let mut sub = path.clone();
                sub.push(name);
                walk(&p, &sub, out);
            } else if let Some(stem) = name.strip_suffix(".rs") {
                match stem {
                    "main" if path.is_empty() => {}
                    "lib" if path.is_empty() => out.push((p.clone(), path.clone())),
                    "mod" => out.push((p.clone(), path.clone())),
                    _ => {
                        let mut m = path.clone();
                        m.push(stem.to_string());
                        out.push((p.clone(), m));
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(src, &Vec::new(), &mut out);
    out
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Path,
    Punct(char),
    /// A string literal's text as written (escapes not undone): plain,
    /// raw, byte or C.
    Str(String),
}

/// The tokens of a Rust file that matter here, with their lines (a
/// string literal's, its first): comments and char literals dropped,
/// lifetimes kept apart from chars.
fn tokens(text: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = text.chars().collect();
    let (mut i, mut line, mut out) = (0, 1, Vec::new());
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(c[i] == '\n');
                    i += 1;
                }
            }
        } else if matches!(ch, 'r' | 'b' | 'c')
            && (at(i + 1) == '"' || at(i + 1) == '#' || (at(i + 1) == 'r' && ch != 'r'))
        {
            // a raw, byte or C string, or a raw identifier
            let prefixed = ch != 'r';
            let mut j = i + 1 + usize::from(prefixed && at(i + 1) == 'r');
            let raw = at(j) == '#' || (at(j) == '"' && j > i + 1) || (ch == 'r' && at(j) == '"');
            let mut hashes = 0;
            while at(j) == '#' {
                hashes += 1;
                j += 1;
            }
            if at(j) == '"' && (raw || prefixed) {
                let first_line = line;
                j += 1;
                let (start, mut end) = (j, c.len());
                let escapes = !raw;
                loop {
                    if j >= c.len() {
                        break;
                    }
                    if c[j] == '\n' {
                        line += 1;
                    }
                    if escapes && c[j] == '\\' {
                        j += 2;
                        continue;
                    }
                    if c[j] == '"' && (0..hashes).all(|h| at(j + 1 + h) == '#') {
                        end = j;
                        j += 1 + hashes;
                        break;
                    }
                    j += 1;
                }
                out.push((Tok::Str(c[start..end.min(c.len())].iter().collect()), first_line));
                i = j;
            } else if ch == 'r' && hashes == 1 && (at(j).is_alphabetic() || at(j) == '_') {
                // r#ident
                let start = j;
                while at(j).is_alphanumeric() || at(j) == '_' {
                    j += 1;
                }
                out.push((Tok::Ident(c[start..j].iter().collect()), line));
                i = j;
            } else {
                let start = i;
                i += 1;
                while at(i).is_alphanumeric() || at(i) == '_' {
                    i += 1;
                }
                out.push((Tok::Ident(c[start..i].iter().collect()), line));
            }
        } else if ch == '"' {
            let first_line = line;
            i += 1;
            let start = i;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    i += 1;
                }
                line += usize::from(at(i) == '\n');
                i += 1;
            }
            out.push((Tok::Str(c[start..i.min(c.len())].iter().collect()), first_line));
            i += 1;
        } else if ch == '\'' {
            // a char literal ('x', '\n', '\u{..}') or a lifetime ('a)
            if at(i + 1) == '\\' {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
                while at(i).is_alphanumeric() || at(i) == '_' {
                    i += 1;
                }
            }
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while at(i).is_alphanumeric() || at(i) == '_' {
                i += 1;
            }
            out.push((Tok::Ident(c[start..i].iter().collect()), line));
        } else if ch == ':' && at(i + 1) == ':' {
            out.push((Tok::Path, line));
            i += 2;
        } else {
            out.push((Tok::Punct(ch), line));
            i += 1;
        }
    }
    out
}

/// A path named in a file: its segments as written (a `use` tree expanded
/// into its leaves), the name it is used by (a `use`'s last segment or its
/// `as`), and its line.
#[derive(Debug)]
struct Named {
    segments: Vec<String>,
    alias: Option<String>,
    line: usize,
    /// Inline modules (`mod tests { .. }`) around it.
    inline: Vec<String>,
    /// In a `pub use`.
    reexport: bool,
}

/// Parses a path tree from `toks[i]` (`a::b::{c, d::e as f, *}`), pushing
/// each leaf onto `out` after `prefix`; returns the index after the tree.
fn tree(
    toks: &[(Tok, usize)],
    mut i: usize,
    prefix: &[String],
    leaves: &mut Vec<(Vec<String>, Option<String>)>,
) -> usize {
    let mut segs = prefix.to_vec();
    loop {
        match toks.get(i).map(|t| &t.0) {
            Some(Tok::Ident(s)) => {
                segs.push(s.clone());
                i += 1;
            }
            Some(Tok::Punct('*')) => return i + 1,
            Some(Tok::Punct('{')) => {
                i += 1;
                loop {
                    match toks.get(i).map(|t| &t.0) {
                        Some(Tok::Punct('}')) => return i + 1,
                        Some(Tok::Punct(',')) => i += 1,
                        None => return i,
                        _ => {
                            let j = tree(toks, i, &segs, leaves);
                            i = if j == i { i + 1 } else { j };
                        }
                    }
                }
            }
            _ => return i,
        }
        if toks.get(i).map(|t| &t.0) == Some(&Tok::Path) {
            i += 1;
            continue;
        }
        let alias = match (toks.get(i).map(|t| &t.0), toks.get(i + 1).map(|t| &t.0)) {
            (Some(Tok::Ident(a)), Some(Tok::Ident(b))) if a == "as" => {
                i += 2;
                Some(b.clone())
            }
            _ => None,
        };
        leaves.push((segs, alias));
        return i;
    }
}

/// Every path in `text` that starts at `crate`, `super` or `self`, and every
/// path of a `use`.
fn named_paths(text: &str) -> Vec<Named> {
    let toks = tokens(text);
    let ident = |i: usize| match toks.get(i) {
        Some((Tok::Ident(s), _)) => Some(s.as_str()),
        _ => None,
    };
    let (mut out, mut inline, mut depth) = (Vec::new(), Vec::<(String, usize)>::new(), 0usize);
    let mut i = 0;
    while i < toks.len() {
        match &toks[i].0 {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
            }
            Tok::Ident(s) if s == "mod" => {
                if let (Some(name), Some((Tok::Punct('{'), _))) = (ident(i + 1), toks.get(i + 2)) {
                    inline.push((name.to_string(), depth));
                }
            }
            _ => {}
        }
        let after_path = i > 0 && matches!(toks[i - 1].0, Tok::Path | Tok::Punct('$'));
        let is_use = ident(i) == Some("use");
        let starts = matches!(ident(i), Some("crate" | "super" | "self"))
            && toks.get(i + 1).map(|t| &t.0) == Some(&Tok::Path)
            && !after_path;
        if is_use || starts {
            // `pub use`, `pub(crate) use`
            let reexport = is_use
                && (i > 0 && ident(i - 1) == Some("pub")
                    || (i > 0 && toks[i - 1].0 == Tok::Punct(')')) && {
                        let open = toks[..i].iter().rposition(|t| t.0 == Tok::Punct('('));
                        open.is_some_and(|k| k > 0 && ident(k - 1) == Some("pub"))
                    });
            let line = toks[i].1;
            let mut leaves = Vec::new();
            let next = tree(&toks, if is_use { i + 1 } else { i }, &[], &mut leaves);
            for (segments, alias) in leaves {
                let inline = inline.iter().map(|(n, _)| n.clone()).collect();
                out.push(Named { segments, alias, line, inline, reexport });
            }
            i = next.max(i + 1);
            continue;
        }
        i += 1;
    }
    out
}

/// `segments` as named in module `module`, from the crate root; `None`
/// when it is not a path inside the crate (`std::..`, a relative path).
fn resolve(module: &[String], segments: &[String]) -> Option<ModPath> {
    let mut path = module.to_vec();
    let mut rest = segments;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            path.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                path.pop()?;
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    path.extend(rest.iter().filter(|s| *s != "self").cloned());
    Some(path)
}

/// The sibling graphs of every module directory: for each directory (its
/// module path), the dependencies between its children.
fn sibling_graphs(src: &Path) -> BTreeMap<ModPath, Vec<Edge>> {
    let files = modules(src);
    // the children of each directory module
    let mut children: BTreeMap<ModPath, BTreeSet<String>> = BTreeMap::new();
    for (_, m) in &files {
        if let Some((last, dir)) = m.split_last() {
            children.entry(dir.to_vec()).or_default().insert(last.clone());
        }
    }
    let parsed: Vec<_> =
        files.iter().map(|(file, m)| (file, m, named_paths(&std::fs::read_to_string(file).unwrap()))).collect();
    // the names each directory's own file re-exports from a child
    let mut reexports: BTreeMap<ModPath, BTreeMap<String, String>> = BTreeMap::new();
    for (_, m, named) in &parsed {
        let Some(kids) = children.get(*m) else { continue };
        for n in named.iter().filter(|n| n.reexport && n.inline.is_empty()) {
            let first = n.segments.first().cloned().unwrap_or_default();
            let target = if kids.contains(&first) {
                // `pub use child::Name` (a path relative to the module)
                let mut t = (*m).clone();
                t.extend(n.segments.iter().cloned());
                Some(t)
            } else {
                resolve(m, &n.segments)
            };
            let Some(t) = target else { continue };
            if t.len() > m.len() + 1 && t[..m.len()] == m[..] && kids.contains(&t[m.len()]) {
                let name = n.alias.clone().unwrap_or_else(|| t.last().unwrap().clone());
                reexports.entry((*m).clone()).or_default().insert(name, t[m.len()].clone());
            }
        }
    }
    let mut graphs: BTreeMap<ModPath, Vec<Edge>> = BTreeMap::new();
    for (file, m, named) in &parsed {
        for n in named {
            let mut here = (*m).clone();
            here.extend(n.inline.iter().cloned());
            let Some(target) = resolve(&here, &n.segments) else { continue };
            // every directory above the file, where the file is one of the children
            for d in 0..m.len() {
                let dir = &m[..d];
                if target.len() <= d || target[..d] != *dir {
                    continue;
                }
                let (from, name) = (&m[d], &target[d]);
                let kids = &children[dir];
                let to = if kids.contains(name) {
                    name.clone()
                } else if let Some(child) = reexports.get(dir).and_then(|r| r.get(name)) {
                    child.clone()
                } else {
                    continue;
                };
                if to != *from {
                    let rel = file.strip_prefix(src.parent().unwrap()).unwrap_or(file);
                    let at = format!("{}:{}: {}", rel.display(), n.line, n.segments.join("::"));
                    graphs.entry(dir.to_vec()).or_default().push(Edge { from: from.clone(), to, at });
                }
            }
        }
    }
    graphs
}

/// The import circles of one directory's graph: for each group of siblings
/// that reach each other, one shortest circle through its first member,
/// each step with the place that makes it, and the whole group.
fn circles(edges: &[Edge]) -> Vec<(Vec<Edge>, Vec<String>)> {
    let mut adj: BTreeMap<&str, BTreeMap<&str, &Edge>> = BTreeMap::new();
    for e in edges {
        adj.entry(&e.from).or_default().entry(&e.to).or_insert(e);
    }
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(n) = stack.pop() {
            for &m in adj.get(n).map(|a| a.keys().collect::<Vec<_>>()).unwrap_or_default() {
                if seen.insert(m) {
                    stack.push(m);
                }
            }
        }
        seen
    };
    let nodes: BTreeSet<&str> = edges.iter().flat_map(|e| [e.from.as_str(), e.to.as_str()]).collect();
    let mut done: BTreeSet<String> = BTreeSet::new();
    let mut out = Vec::new();
    for &n in &nodes {
        if done.contains(n) || !reach(n).contains(n) {
            continue;
        }
        // breadth first from n back to n
        let mut prev: BTreeMap<&str, &Edge> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([n]);
        'bfs: while let Some(a) = queue.pop_front() {
            for (&b, &e) in adj.get(a).into_iter().flatten() {
                if b == n {
                    prev.insert(n, e);
                    break 'bfs;
                }
                if !prev.contains_key(b) {
                    prev.insert(b, e);
                    queue.push_back(b);
                }
            }
        }
        let mut circle = Vec::new();
        let mut at = n;
        loop {
            let e = prev[at];
            circle.push(e.clone());
            at = &e.from;
            if at == n {
                break;
            }
        }
        circle.reverse();
        let group: BTreeSet<&str> = reach(n).into_iter().filter(|m| reach(m).contains(n)).collect();
        let group: Vec<String> = group.into_iter().map(String::from).collect();
        done.extend(group.iter().cloned());
        out.push((circle, group));
    }
    out
}

/// What the import circles of every directory under `src` say, empty if
/// none.
fn report(src: &Path) -> String {
    report_graphs(sibling_graphs(src))
}

/// What the circles of the sibling graphs `graphs` say, empty if none.
fn report_graphs(graphs: BTreeMap<ModPath, Vec<Edge>>) -> String {
    let mut msg = String::new();
    for (dir, edges) in graphs {
        for (circle, group) in circles(&edges) {
            let names: Vec<&str> = circle.iter().map(|e| e.from.as_str()).collect();
            let dir = if dir.is_empty() { "crate".to_string() } else { format!("crate::{}", dir.join("::")) };
            writeln!(msg, "import circle in {dir}: {} -> {}", names.join(" -> "), names[0]).unwrap();
            if group.len() > names.len() {
                writeln!(msg, "  (one of the circles among {})", group.join(", ")).unwrap();
            }
            for e in &circle {
                writeln!(msg, "    {} -> {}  ({})", e.from, e.to, e.at).unwrap();
            }
        }
    }
    msg
}

/// Dependencies the check lets stand, each with the reason, until the code
/// that makes it moves: (directory, from, to, why). The check fails when
/// one is gone, so that the list only shrinks.
const ALLOWED: &[(&str, &str, &str, &str)] = &[];

#[test]
fn no_import_circle_in_src() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graphs = sibling_graphs(&src);
    for (dir, from, to, why) in ALLOWED {
        let key: ModPath = if *dir == "crate" { Vec::new() } else { dir.split("::").map(String::from).collect() };
        let edges = graphs.get_mut(&key).unwrap();
        let before = edges.len();
        edges.retain(|e| (e.from.as_str(), e.to.as_str()) != (from, to));
        assert!(edges.len() < before, "{dir}: {from} -> {to} is gone; take it off ALLOWED ({why})");
    }
    let msg = report_graphs(graphs);
    assert!(msg.is_empty(), "{msg}");
}

/// The check on a made-up tree: it finds a circle made by a `use`, a
/// qualified path and a re-export, and names it; it ignores comments,
/// strings, the parent's own items and test modules' `super::*`.
#[test]
fn the_check_finds_a_circle_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let write = |path: &str, text: &str| {
        let p = src.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write("lib.rs", "pub mod a;\npub mod eng;\n");
    write("a.rs", "//! uses crate::eng::b::X in a comment only\npub fn f() -> &'static str { \"crate::eng::b\" }\n");
    write("eng/mod.rs", "pub mod b;\npub mod c;\npub mod d;\npub use d::Dee;\npub struct Shared;\n");
    write("eng/b.rs", "use super::{Shared, c::{Cee as C}};\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n");
    write("eng/c.rs", "use super::Shared;\npub fn g() { let _ = super::Dee; }\n");
    write("eng/d.rs", "pub struct Dee;\n");
    assert_eq!(report(&src), "", "no circle yet");
    write("eng/d.rs", "pub struct Dee;\nfn h() { crate::eng::b::f(); }\n");
    let msg = report(&src);
    assert_eq!(
        msg,
        "import circle in crate::eng: b -> c -> d -> b\n    \
         b -> c  (src/eng/b.rs:1: super::c::Cee)\n    \
         c -> d  (src/eng/c.rs:2: super::Dee)\n    \
         d -> b  (src/eng/d.rs:2: crate::eng::b::f)\n"
    );
    // a circle between directories is found where they are siblings
    write("eng/d.rs", "pub struct Dee;\n");
    write("a.rs", "use crate::eng::Dee;\n");
    write("eng/c.rs", "pub fn g() { let _ = crate::a::f; }\n");
    let msg = report(&src);
    assert!(msg.starts_with("import circle in crate: a -> eng -> a\n"), "{msg}");
}

/// Most lines an `impl` block may take: a block longer than this holds
/// more than one concept of its type, and its methods go to the files of
/// their concepts (a type may have an `impl` block in each).
const MAX_IMPL_LINES: usize = 250;

/// Files longer than this must hold a single concept and say so in a
/// first `//!` comment.
const MAX_PLAIN_FILE_LINES: usize = 800;

/// Files the room check lets stand, each with what it still owes, until
/// they are reshaped. The check fails when one is gone or within the
/// limits, so that the list only shrinks (empty since src/estimate/,
/// src/search/reachable/ and src/report/catalog/ were split by concept).
const OWED: &[(&str, &str)] = &[];

/// The `impl` blocks of a Rust text: (first line, last line, header), the
/// header being the tokens up to its `{`. An `impl` in type position
/// (`-> impl Iterator`, `x: impl Fn()`) follows `:`, `(`, `,`, `>`, `&`
/// or `<`, not the end of an item, and is left out.
fn impl_blocks(text: &str) -> Vec<(usize, usize, String)> {
    let toks = tokens(text);
    let mut out = Vec::new();
    for (i, (t, line)) in toks.iter().enumerate() {
        if *t != Tok::Ident("impl".into()) {
            continue;
        }
        let item = match i.checked_sub(1).map(|p| &toks[p].0) {
            None => true,
            Some(Tok::Punct(c)) => matches!(c, '}' | ';' | ']' | '{'),
            Some(Tok::Ident(s)) => s == "unsafe",
            Some(Tok::Path | Tok::Str(_)) => false,
        };
        if !item {
            continue;
        }
        let Some(open) = (i..toks.len()).find(|&j| matches!(toks[j].0, Tok::Punct('{') | Tok::Punct(';'))) else {
            continue;
        };
        if toks[open].0 == Tok::Punct(';') {
            continue;
        }
        let header: Vec<String> = toks[i..open]
            .iter()
            .map(|(t, _)| match t {
                Tok::Ident(s) => s.clone(),
                Tok::Path => "::".into(),
                Tok::Punct(c) => c.to_string(),
                Tok::Str(s) => format!("{s:?}"),
            })
            .collect();
        let mut depth = 0usize;
        let close = (open..toks.len()).find(|&j| {
            match toks[j].0 {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => depth -= 1,
                _ => {}
            }
            depth == 0
        });
        let last = close.map_or(toks.last().map_or(*line, |t| t.1), |j| toks[j].1);
        out.push((*line, last, header.join(" ")));
    }
    out
}

/// What is wrong with the rooms of the Rust files under `src`: impl blocks
/// over [`MAX_IMPL_LINES`], files over [`MAX_PLAIN_FILE_LINES`] without a
/// first `//!` comment; files `owed` names are left out. Empty if none.
fn rooms_report(src: &Path, owed: &[&str]) -> String {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(src, &mut files);
    let mut msg = String::new();
    for file in files {
        let rel = file.strip_prefix(src.parent().unwrap()).unwrap_or(&file).to_string_lossy().replace('\\', "/");
        if owed.contains(&rel.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let lines = text.lines().count();
        if lines > MAX_PLAIN_FILE_LINES && !text.starts_with("//!") {
            writeln!(
                msg,
                "{rel}: {lines} lines with no first `//!` comment (a file over {MAX_PLAIN_FILE_LINES} lines \
                 holds one concept and says which)"
            )
            .unwrap();
        }
        for (first, last, header) in impl_blocks(&text) {
            let n = last - first + 1;
            if n > MAX_IMPL_LINES {
                writeln!(msg, "{rel}:{first}: `{header}` is {n} lines, over {MAX_IMPL_LINES}: split it by concept")
                    .unwrap();
            }
        }
    }
    msg
}

#[test]
fn no_impl_block_or_file_holds_too_many_concepts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let owed: Vec<&str> = OWED.iter().map(|(f, _)| *f).collect();
    for (file, what) in OWED {
        let path = root.join(file);
        // still owed: still there and still beyond a limit
        let beyond = std::fs::read_to_string(&path).is_ok_and(|text| {
            text.lines().count() > MAX_PLAIN_FILE_LINES
                || impl_blocks(&text).iter().any(|(a, b, _)| b - a + 1 > MAX_IMPL_LINES)
        });
        assert!(beyond, "{file} is within the limits now (it {what}); take it off OWED");
    }
    let msg = rooms_report(&root.join("src"), &owed);
    assert!(msg.is_empty(), "{msg}");
}

/// The room check on made-up files: it measures an impl block from
/// `impl` to its closing brace (braces in strings and comments not
/// counted, `impl Trait` in a signature no block), and wants a `//!` on a
/// long file.
#[test]
fn the_room_check_measures_impl_blocks_and_long_files() {
    let text = "/// doc\nimpl<T: Clone> Foo<T> {\n    fn f(x: impl Fn()) -> impl Iterator<Item = u8> {\n        \
                let _ = \"}\";\n        // }\n        std::iter::empty()\n    }\n}\nunsafe impl Send for Foo {}\n\
                impl Bar for Baz;\n";
    let blocks = impl_blocks(text);
    assert_eq!(blocks.len(), 2, "{blocks:?}");
    assert_eq!((blocks[0].0, blocks[0].1), (2, 8));
    assert_eq!(blocks[0].2, "impl < T : Clone > Foo < T >");
    assert_eq!((blocks[1].0, blocks[1].1), (9, 9));
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("a")).unwrap();
    // (the impl line, the methods, the closing brace: exactly the limit)
    let long_impl = format!("impl Foo {{\n{}}}\n", "    fn f() {}\n".repeat(MAX_IMPL_LINES - 2));
    std::fs::write(src.join("a/ok.rs"), &long_impl).unwrap();
    assert_eq!(rooms_report(&src, &[]), "");
    let too_long = format!("impl Foo {{\n{}}}\n", "    fn f() {}\n".repeat(MAX_IMPL_LINES - 1));
    std::fs::write(src.join("a/big.rs"), &too_long).unwrap();
    std::fs::write(src.join("long.rs"), "fn f() {}\n".repeat(MAX_PLAIN_FILE_LINES + 1)).unwrap();
    std::fs::write(src.join("said.rs"), format!("//! One concept.\n{}", "fn f() {}\n".repeat(MAX_PLAIN_FILE_LINES)))
        .unwrap();
    assert_eq!(
        rooms_report(&src, &[]),
        format!(
            "src/a/big.rs:1: `impl Foo` is {} lines, over {MAX_IMPL_LINES}: split it by concept\n\
             src/long.rs: {} lines with no first `//!` comment (a file over {MAX_PLAIN_FILE_LINES} lines \
             holds one concept and says which)\n",
            MAX_IMPL_LINES + 1,
            MAX_PLAIN_FILE_LINES + 1
        )
    );
    assert_eq!(rooms_report(&src, &["src/a/big.rs", "src/long.rs"]), "");
}

/// Library files that build command lines throughout (the catalogue's
/// portable commands, a build instruction, the quoting helpers' tests):
/// flags are their matter. Elsewhere a literal that builds a command line
/// says so with `// command line` on its line.
const COMMAND_LINE_FILES: [&str; 3] = ["engine/layers/ranks.rs", "report/catalog/render.rs", "text.rs"];

/// The string literals of a Rust file (read by [`tokens`]) that name a
/// flag (`--word` after a space, a bracket, a quote or the literal's
/// start), with their first lines.
fn flags_in_literals(text: &str) -> Vec<(usize, String)> {
    let flag = |s: &str| {
        s.match_indices("--").any(|(k, _)| {
            (k == 0 || matches!(s.as_bytes()[k - 1], b' ' | b'\n' | b'(' | b'`' | b'\'' | b'"' | b'['))
                && s.as_bytes().get(k + 2).is_some_and(u8::is_ascii_lowercase)
        })
    };
    tokens(text)
        .into_iter()
        .filter_map(|(t, line)| match t {
            Tok::Str(s) if flag(&s) => Some((line, s)),
            _ => None,
        })
        .collect()
}

/// The library names settings, not the command line's flags: a message
/// with a flag in it is worded by `src/cli/`, which knows them (the
/// library's errors are for any caller).
#[test]
fn the_library_names_no_flag() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = String::new();
    for (file, module) in modules(&src) {
        let rel = file.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        if module.first().is_some_and(|m| m == "cli") || COMMAND_LINE_FILES.contains(&rel.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (line, literal) in flags_in_literals(&text) {
            if !lines[line - 1].contains("// command line") {
                writeln!(found, "src/{rel}:{line}: {literal:?}").unwrap();
            }
        }
    }
    assert!(found.is_empty(), "library strings that name flags (word them in src/cli/):\n{found}");
}

#[test]
fn the_flag_check_reads_literals_only() {
    let text = "// --budget in a comment\n\
                /* --threads\n in a block */\n\
                let c = '\"'; let l: &'a str = \"give a smaller --budget\";\n\
                let r = r#\"raw \"--memory\" here\"#;\n\
                let e = \"escaped \\\" quote\"; let d = \"a -- dash, x--y, ---z\";\n\
                let two = \"first line\n and --max-discs on the next\";\n\
                /* outer /* inner */ still --out a comment */ let br = br#\"\"\"#; let t = \"x --seed\";\n\
                let r#type = 1; let ident_r = cr\"\\\"; let u = \"(--frontier)\";\n";
    let found = flags_in_literals(text);
    assert_eq!(
        found,
        vec![
            (4, "give a smaller --budget".to_string()),
            (5, "raw \"--memory\" here".to_string()),
            (7, "first line\n and --max-discs on the next".to_string()),
            (9, "x --seed".to_string()),
            (10, "(--frontier)".to_string()),
        ]
    );
}
