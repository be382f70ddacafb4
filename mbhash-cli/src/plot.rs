//! `mbhash bench --plot FILE.svg`: the bench's rows as an SVG chart.
//!
//! One panel per algorithm and message size (rows: algorithms, columns:
//! sizes); in each, GB/s against the number of streams (powers of two evenly
//! spaced), one line per implementation (mbhash on its engine, and the
//! peer).

use std::cell::RefCell;
use std::path::PathBuf;

use plotters::prelude::*;

/// One measured point.
#[derive(Debug, Clone)]
pub struct Point {
    /// Algorithm, e.g. `sha256`.
    pub algo: String,
    /// The line it belongs to, e.g. `mbhash/auto` or `sha2`.
    pub series: String,
    /// Message size in bytes.
    pub size: usize,
    /// Messages in flight.
    pub streams: usize,
    /// Throughput.
    pub gbps: f64,
}

/// Collects the bench's rows for a plot written at the end.
#[derive(Debug)]
pub struct Recorder {
    path: PathBuf,
    points: RefCell<Vec<Point>>,
}

impl Recorder {
    /// A recorder that will write `path`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Recorder {
            path: path.into(),
            points: RefCell::new(Vec::new()),
        }
    }

    /// Adds one row.
    pub fn record(&self, algo: &str, series: &str, size: usize, streams: usize, gbps: f64) {
        self.points.borrow_mut().push(Point {
            algo: algo.to_string(),
            series: series.to_string(),
            size,
            streams,
            gbps,
        });
    }

    /// Writes the SVG.
    pub fn write(&self) -> Result<(), String> {
        let points = self.points.borrow();
        draw(&self.path, &points).map_err(|e| format!("--plot {}: {e}", self.path.display()))
    }
}

fn size_label(size: usize) -> String {
    if size >= 1 << 20 && size.is_multiple_of(1 << 20) {
        format!("{} MiB", size >> 20)
    } else if size >= 1 << 10 && size.is_multiple_of(1 << 10) {
        format!("{} KiB", size >> 10)
    } else {
        format!("{size} B")
    }
}

/// Distinct values in order of first appearance.
fn distinct<T: PartialEq + Clone>(it: impl Iterator<Item = T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for x in it {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// Draws `points` into an SVG file at `path`.
pub fn draw(path: &std::path::Path, points: &[Point]) -> Result<(), Box<dyn std::error::Error>> {
    if points.is_empty() {
        return Err("no rows to plot".into());
    }
    let algos = distinct(points.iter().map(|p| p.algo.clone()));
    let mut sizes = distinct(points.iter().map(|p| p.size));
    sizes.sort_unstable();
    let series = distinct(points.iter().map(|p| p.series.clone()));
    let (pw, ph) = (420u32, 300u32);
    let root = SVGBackend::new(
        path,
        (pw * sizes.len() as u32, ph * algos.len() as u32 + 30),
    )
    .into_drawing_area();
    root.fill(&WHITE)?;
    let (title, body) = root.split_vertically(30);
    title.titled(
        "mbhash bench: GB/s by message size and streams in flight",
        ("sans-serif", 18),
    )?;
    let panels = body.split_evenly((algos.len(), sizes.len()));
    for (r, algo) in algos.iter().enumerate() {
        for (c, &size) in sizes.iter().enumerate() {
            let panel = &panels[r * sizes.len() + c];
            let here: Vec<&Point> = points
                .iter()
                .filter(|p| &p.algo == algo && p.size == size)
                .collect();
            // x is log2(streams): evenly spaced powers of two.
            let max_x = (here.iter().map(|p| p.streams).max().unwrap_or(1).max(2) as f64)
                .log2()
                .ceil();
            let max_gbps = here.iter().map(|p| p.gbps).fold(0.0, f64::max).max(0.1) * 1.1;
            let mut chart = ChartBuilder::on(panel)
                .caption(format!("{algo}, {}", size_label(size)), ("sans-serif", 15))
                .margin(10)
                .x_label_area_size(35)
                .y_label_area_size(45)
                .build_cartesian_2d(0f64..max_x, 0f64..max_gbps)?;
            chart
                .configure_mesh()
                .x_desc("streams")
                .y_desc("GB/s")
                .x_labels(max_x as usize + 1)
                .x_label_formatter(&|x| format!("{}", x.exp2().round()))
                .light_line_style(WHITE)
                .draw()?;
            for (k, name) in series.iter().enumerate() {
                let mut line: Vec<(f64, f64)> = here
                    .iter()
                    .filter(|p| &p.series == name)
                    .map(|p| ((p.streams as f64).log2(), p.gbps))
                    .collect();
                if line.is_empty() {
                    continue;
                }
                line.sort_by(|a, b| a.0.total_cmp(&b.0));
                let color = Palette99::pick(k).to_rgba();
                chart
                    .draw_series(LineSeries::new(line.clone(), color.stroke_width(2)))?
                    .label(name.as_str())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
                chart.draw_series(line.into_iter().map(|p| Circle::new(p, 3, color.filled())))?;
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()?;
        }
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_an_svg() {
        let dir = std::env::temp_dir().join(format!("mbhash-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bench.svg");
        let rec = Recorder::new(&path);
        for (size, base) in [(64, 0.5), (4096, 2.0)] {
            for streams in [1, 2, 4, 16] {
                rec.record(
                    "sha256",
                    "mbhash/auto",
                    size,
                    streams,
                    base * streams as f64,
                );
                rec.record("sha256", "sha2", size, streams, base);
            }
        }
        rec.write().unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("mbhash/auto") && svg.contains("4 KiB"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
