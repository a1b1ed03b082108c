//! The census plot: one panel per board, classes, positions and terminal
//! positions per layer on a log scale, as an SVG (plotters' SVG backend;
//! no system libraries). Exact layers are lines (by discs solid, by ply
//! dashed at 4 + ply); estimated layers (`results/<N>x<N>-estimate.csv`)
//! that no census has counted are points with their 95% interval as a
//! bar, never joined to the lines; a panel's title gives the whole
//! board's positions where every layer is counted or estimated.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use plotters::prelude::*;

use super::catalog::Catalog;
use super::estimate::sci;
use crate::estimate::{LayerEstimate, Tally, candidates};

/// One line of the plot: label, points, quantity index, dashed.
type Series = (String, Vec<(f64, f64)>, usize, bool);

/// Estimated positions of a layer: discs, point, low, high.
type Bar = (f64, f64, f64, f64);

const QUANTITIES: [(&str, usize); 3] = [("classes", 0usize), ("positions", 1), ("terminal_positions", 2)];
const COLOURS: [RGBColor; 3] = [BLUE, RED, GREEN];

/// Why the plot was not drawn.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("the catalogue holds no rows to plot")]
    Empty,
    /// The plotting library failed (its message).
    #[error("{}: {detail}", path.display())]
    Draw { path: PathBuf, detail: String },
    #[error("{}: {error}", path.display())]
    Write { path: PathBuf, error: std::io::Error },
}

/// Draws the catalogue into an SVG at `path`: a panel per board that has
/// exact rows or estimates. Returns the number of series drawn.
pub fn plot(catalog: &Catalog, path: &Path) -> Result<usize, PlotError> {
    let pooled = catalog.pooled_estimates();
    let mut boards: Vec<u32> = catalog
        .tables
        .keys()
        .filter_map(|name| name.split('x').next()?.parse().ok())
        .chain(pooled.keys().copied())
        .collect();
    boards.sort_unstable();
    boards.dedup();
    if boards.is_empty() {
        return Err(PlotError::Empty);
    }
    // drawn in memory, then written atomically: a plot stopped half way
    // leaves the previous one
    let mut svg = String::new();
    let drawn = {
        let root = SVGBackend::with_string(&mut svg, (560 * boards.len() as u32, 640)).into_drawing_area();
        let draw = |detail: String| PlotError::Draw { path: path.to_path_buf(), detail };
        let err = |e: DrawingAreaErrorKind<_>| draw(e.to_string());
        root.fill(&WHITE).map_err(err)?;
        let panels = root.split_evenly((1, boards.len()));
        let mut drawn = 0;
        for (panel, &n) in panels.iter().zip(&boards) {
            let exact = catalog.exact_layers(n);
            let bars: Vec<Bar> =
                estimate_bars(&pooled, n).into_iter().filter(|b| !exact.contains_key(&(b.0 as u32))).collect();
            let caption = match catalog.whole_board_estimate(n) {
                Some(w) => {
                    let (p, lo, hi) = w.published(0);
                    format!("{n}x{n}: {} positions in all (95%: {} to {})", sci(p), sci(lo), sci(hi))
                }
                None => format!("{n}x{n}"),
            };
            drawn +=
                draw_panel(panel, &caption, n, &exact_series(catalog, n), &bars).map_err(|e| draw(e.to_string()))?;
        }
        root.present().map_err(err)?;
        drawn
    };
    crate::formats::atomic::atomic_write(path, svg.as_bytes())
        .map_err(|error| PlotError::Write { path: path.to_path_buf(), error })?;
    Ok(drawn)
}

/// The exact layers of board `n`: a line per table and quantity.
fn exact_series(catalog: &Catalog, n: u32) -> Vec<Series> {
    let mut series: Vec<Series> = Vec::new();
    for (name, rows) in catalog.tables.iter().filter(|(name, _)| name.starts_with(&format!("{n}x{n}-"))) {
        let by_ply = name.ends_with("by-ply");
        for (q, style) in QUANTITIES {
            let points: Vec<(f64, f64)> = rows
                .iter()
                .filter_map(|(layer, row)| {
                    let v = row.get(q)?.as_f64()?;
                    let x = if by_ply { 4.0 + *layer as f64 } else { *layer as f64 };
                    (v > 0.0).then_some((x, v))
                })
                .collect();
            if !points.is_empty() {
                let by = if by_ply { "by ply" } else { "by discs" };
                series.push((format!("{} {by}", q.replace('_', " ")), points, style, by_ply));
            }
        }
    }
    series
}

/// The estimated layers of board `n`: a bar per layer whose interval is not
/// all zero.
fn estimate_bars(pooled: &BTreeMap<u32, BTreeMap<u32, (Tally, Vec<String>)>>, n: u32) -> Vec<Bar> {
    pooled
        .get(&n)
        .into_iter()
        .flatten()
        .map(|(&k, (t, _))| {
            let e = LayerEstimate::new(k, candidates(n, k), *t);
            (k as f64, e.positions.estimate, e.positions.low, e.positions.high)
        })
        .filter(|b| b.3 > 0.0)
        .collect()
}

/// Draws the panel of board `n`; returns the number of series drawn.
fn draw_panel(
    panel: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    caption: &str,
    n: u32,
    series: &[Series],
    bars: &[Bar],
) -> Result<usize, DrawingAreaErrorKind<std::io::Error>> {
    let x_max = series
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.0))
        .chain(bars.iter().map(|b| b.0))
        .fold(n as f64 + 4.0, f64::max);
    let y_max =
        series.iter().flat_map(|s| s.1.iter().map(|p| p.1)).chain(bars.iter().map(|b| b.3)).fold(10.0, f64::max);
    let mut chart = ChartBuilder::on(panel)
        .caption(caption, ("sans-serif", 18))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(4.0..x_max + 1.0, (1.0..y_max * 3.0).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("discs on the board (by ply: 4 + ply)")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_desc("count (log scale)")
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .draw()?;
    let mut drawn = 0;
    for (label, points, style, dashed) in series {
        let colour = COLOURS[*style];
        let stroke = colour.stroke_width(if *style == 1 { 3 } else { 1 });
        let d = if *dashed {
            chart.draw_series(DashedLineSeries::new(points.iter().copied(), 6, 4, stroke))
        } else {
            chart.draw_series(LineSeries::new(points.iter().copied(), stroke))
        };
        d?.label(label.clone()).legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour));
        drawn += 1;
    }
    if !bars.is_empty() {
        // a bar from the interval's ends (a lower end of 0 drawn from the
        // axis), a point at the estimate (none where it is 0)
        let bar_colour = RGBColor(120, 0, 160);
        chart
            .draw_series(
                bars.iter()
                    .map(|&(x, _, lo, hi)| PathElement::new([(x, lo.max(1.0)), (x, hi)], bar_colour.stroke_width(2))),
            )?
            .label("positions, estimated (95% interval)")
            .legend(move |(x, y)| PathElement::new([(x + 10, y - 6), (x + 10, y + 6)], bar_colour.stroke_width(2)));
        chart.draw_series(
            bars.iter().filter(|b| b.1 > 0.0).map(|&(x, v, _, _)| Circle::new((x, v), 3, bar_colour.filled())),
        )?;
        drawn += 1;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()?;
    Ok(drawn)
}
