//! Plain-text tables with right-aligned numeric columns.

pub use crate::text::group_digits;

/// A table: a header row and rows of cells, rendered with every column
/// right-aligned except the first.
#[derive(Debug, Default, Clone)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column titles.
    pub fn new<S: Into<String>>(header: impl IntoIterator<Item = S>) -> Table {
        Table { header: header.into_iter().map(Into::into).collect(), rows: Vec::new() }
    }

    /// Appends a row.
    pub fn row<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) {
        self.rows.push(cells.into_iter().map(Into::into).collect());
    }

    /// The rendered table, one line per row, a rule under the header.
    pub fn render(&self) -> String {
        let cols = self.header.len();
        let mut width = vec![0usize; cols];
        for r in std::iter::once(&self.header).chain(&self.rows) {
            for (i, c) in r.iter().enumerate().take(cols) {
                width[i] = width[i].max(c.chars().count());
            }
        }
        let line = |r: &Vec<String>| {
            let cells: Vec<String> = (0..cols)
                .map(|i| {
                    let c = r.get(i).map(String::as_str).unwrap_or("");
                    if i == 0 { format!("{c:<w$}", w = width[i]) } else { format!("{c:>w$}", w = width[i]) }
                })
                .collect();
            cells.join("  ").trim_end().to_string()
        };
        let mut out = line(&self.header);
        out.push('\n');
        out.push_str(&"-".repeat(width.iter().sum::<usize>() + 2 * cols.saturating_sub(1)));
        out.push('\n');
        for r in &self.rows {
            out.push_str(&line(r));
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits() {
        assert_eq!(group_digits(0u64), "0");
        assert_eq!(group_digits(999u64), "999");
        assert_eq!(group_digits(1000u64), "1,000");
        assert_eq!(group_digits(62789u64), "62,789");
        assert_eq!(group_digits(1234567u64), "1,234,567");
    }

    #[test]
    fn renders() {
        let mut t = Table::new(["ply", "games"]);
        t.row(["1", "4"]);
        t.row(["10", "1,000"]);
        assert_eq!(t.render(), "ply  games\n----------\n1        4\n10   1,000\n");
    }
}
