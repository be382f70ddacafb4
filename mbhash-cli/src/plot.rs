//! `mbhash bench --plot FILE.svg`: the bench's rows as an SVG chart.
//!
//! One row of panels per algorithm, one panel per message size; in each,
//! GB/s against the number of streams (powers of two evenly spaced), one
//! line per implementation (mbhash on its engine, and the peers). An
//! algorithm measured at a single stream count (CRC32C) gets one panel of
//! GB/s against message size instead.

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

/// What a panel plots.
#[derive(Clone, Copy)]
enum Panel {
    /// One message size; x is the number of streams.
    Streams(usize),
    /// Every message size (an algorithm measured at one stream count, such
    /// as CRC32C); x is the size.
    Sizes,
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// Draws `points` into an SVG file at `path`.
pub fn draw(path: &std::path::Path, points: &[Point]) -> DrawResult {
    if points.is_empty() {
        return Err("no rows to plot".into());
    }
    let algos = distinct(points.iter().map(|p| p.algo.clone()));
    let rows: Vec<(&String, Vec<Panel>)> = algos
        .iter()
        .map(|algo| {
            let here = || points.iter().filter(move |p| &p.algo == algo);
            let mut sizes = distinct(here().map(|p| p.size));
            sizes.sort_unstable();
            let panels = if distinct(here().map(|p| p.streams)).len() == 1 {
                vec![Panel::Sizes]
            } else {
                sizes.into_iter().map(Panel::Streams).collect()
            };
            (algo, panels)
        })
        .collect();
    let cols = rows.iter().map(|r| r.1.len()).max().unwrap_or(1);
    let (pw, ph) = (420u32, 300u32);
    let root =
        SVGBackend::new(path, (pw * cols as u32, ph * rows.len() as u32 + 30)).into_drawing_area();
    root.fill(&WHITE)?;
    let (title, body) = root.split_vertically(30);
    title.titled(
        "mbhash bench: GB/s by message size and streams in flight",
        ("sans-serif", 18),
    )?;
    let cells = body.split_evenly((rows.len(), cols));
    for (r, (algo, panels)) in rows.iter().enumerate() {
        for (c, &panel) in panels.iter().enumerate() {
            let here: Vec<&Point> = points
                .iter()
                .filter(|p| &p.algo == *algo)
                .filter(|p| match panel {
                    Panel::Streams(size) => p.size == size,
                    Panel::Sizes => true,
                })
                .collect();
            draw_panel(&cells[r * cols + c], algo, panel, &here)?;
        }
    }
    root.present()?;
    Ok(())
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    algo: &str,
    panel: Panel,
    here: &[&Point],
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    // x is log2 of the streams or the size: powers of two evenly spaced.
    let x_of = |p: &Point| match panel {
        Panel::Streams(_) => (p.streams as f64).log2(),
        Panel::Sizes => (p.size as f64).log2(),
    };
    let min_x = here
        .iter()
        .map(|p| x_of(p))
        .fold(f64::INFINITY, f64::min)
        .floor();
    let max_x = here
        .iter()
        .map(|p| x_of(p))
        .fold(f64::NEG_INFINITY, f64::max)
        .ceil()
        .max(min_x + 1.0);
    let max_gbps = here.iter().map(|p| p.gbps).fold(0.0, f64::max).max(0.1) * 1.1;
    let (caption, x_desc) = match panel {
        Panel::Streams(size) => (format!("{algo}, {}", size_label(size)), "streams"),
        Panel::Sizes => (
            format!("{algo}, {} stream(s)", here[0].streams),
            "message size",
        ),
    };
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 15))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(min_x..max_x, 0f64..max_gbps)?;
    // At most about seven labels: every `step`-th power of two.
    let ticks = (max_x - min_x) as usize + 1;
    let step = ticks.div_ceil(7).max(1);
    let label = |x: &f64| {
        if !((x - min_x).round() as usize).is_multiple_of(step) {
            return String::new();
        }
        let v = x.exp2().round() as usize;
        match panel {
            Panel::Streams(_) => v.to_string(),
            Panel::Sizes => size_label(v),
        }
    };
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc("GB/s")
        .x_labels(ticks)
        .x_label_formatter(&label)
        .light_line_style(WHITE)
        .draw()?;
    let series = distinct(here.iter().map(|p| p.series.clone()));
    for (k, name) in series.iter().enumerate() {
        let mut line: Vec<(f64, f64)> = here
            .iter()
            .filter(|p| &p.series == name)
            .map(|p| (x_of(p), p.gbps))
            .collect();
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
            rec.record("crc32c", "mbhash/vpclmul", size, 1, base * 20.0);
        }
        rec.write().unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("mbhash/auto") && svg.contains("4 KiB"));
        assert!(svg.contains("crc32c, 1 stream(s)") && svg.contains("message size"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
