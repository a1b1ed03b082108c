//! The census plot: classes, positions and terminal positions per layer on
//! a log scale, one line per board and quantity, as an SVG (plotters'
//! SVG backend; no system libraries).

use std::path::Path;

use plotters::prelude::*;

use super::catalog::Catalog;

/// One line of the plot: label, points, quantity index, dashed.
type Series = (String, Vec<(f64, f64)>, usize, bool);

/// Draws the by-discs tables of `catalog` (the by-ply tables too, against
/// `4 + ply`, dashed) into an SVG at `path`.
pub fn plot(catalog: &Catalog, path: &Path) -> Result<usize, String> {
    let quantities = [("classes", 0usize), ("positions", 1), ("terminal_positions", 2)];
    let mut series: Vec<Series> = Vec::new();
    for (name, rows) in &catalog.tables {
        let by_ply = name.ends_with("by-ply");
        for (q, style) in quantities {
            let points: Vec<(f64, f64)> = rows
                .iter()
                .filter_map(|(layer, row)| {
                    let v = row.get(q)?.as_f64()?;
                    let x = if by_ply { 4.0 + *layer as f64 } else { *layer as f64 };
                    (v > 0.0).then_some((x, v))
                })
                .collect();
            if !points.is_empty() {
                series.push((format!("{name} {}", q.replace('_', " ")), points, style, by_ply));
            }
        }
    }
    if series.is_empty() {
        return Err("the catalogue holds no rows to plot".into());
    }
    let x_max = series.iter().flat_map(|s| s.1.iter().map(|p| p.0)).fold(4.0, f64::max);
    let y_max = series.iter().flat_map(|s| s.1.iter().map(|p| p.1)).fold(1.0, f64::max);
    let root = SVGBackend::new(path, (1000, 700)).into_drawing_area();
    let err = |e: DrawingAreaErrorKind<_>| format!("{}: {e}", path.display());
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption("Othello census: per layer (by discs; by ply at 4 + ply, dashed)", ("sans-serif", 22))
        .margin(20)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(4.0..x_max + 1.0, (1.0..y_max * 2.0).log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("discs on the board")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_desc("count (log scale)")
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .draw()
        .map_err(err)?;
    let palette = [RED, BLUE, GREEN, MAGENTA, CYAN, BLACK];
    for (i, (label, points, style, dashed)) in series.iter().enumerate() {
        let colour = palette[(i / 3) % palette.len()];
        let stroke = colour.stroke_width(if *style == 1 { 3 } else { 1 });
        let drawn = if *dashed {
            chart.draw_series(DashedLineSeries::new(points.iter().copied(), 6, 4, stroke))
        } else {
            chart.draw_series(LineSeries::new(points.iter().copied(), stroke))
        };
        drawn.map_err(err)?.label(label.clone()).legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)?;
    Ok(series.len())
}
