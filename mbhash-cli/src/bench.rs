//! `mbhash bench`: throughput of mbhash against its peers, measured in the
//! same process with interleaved rounds; the median of each is reported.
//!
//! JSON rows (one object per line) keep stable field names: `algo`, `impl`,
//! `engine`, `size`, `streams`, `gbps`, `vs_sha2`, `vs_rustcrypto`,
//! `vs_peer`, `peer`, `vs_isal`, `vs_openssl`, `api`. `vs_openssl` is the
//! ratio to OpenSSL's one-stream digest (`EVP_Digest` per message, an
//! `"impl":"openssl"` row) when libcrypto was linked, else `null`. `vs_rustcrypto` is the ratio to the
//! RustCrypto crate of the family (`sha2`, `md-5`, `sha1`, `sm3`; the `impl`
//! of its row), `vs_sha2` the same ratio on SHA-2 rows and `null` on the
//! others (`null` both on CRC32C rows).
//! The rows of the named CRCs (`--algo crc32,crc64-nvme,...`, [`crc`]) add
//! `vs_crc_fast`, `vs_libdeflate` and `vs_zlib`.
//!
//! When the build found ISA-L / ISA-L crypto (see build.rs), each grid point
//! also gets an `"impl":"isal"` row (`"peer":"isal"`, `engine` the ISA-L
//! manager that was fastest there: ISA-L's own dispatch is timed beside its
//! per-instruction-set managers) and every row of the point a `vs_isal`
//! ratio (`null` without ISA-L).

use mbhash_core::engine::{FamilyEngine, HashAlgorithm};
use std::hint::black_box;
use std::time::{Duration, Instant};

mod crc;

use mbhash_core::alg;
use mbhash_core::engine::{
    Engine, Kernels, LaneEngine, Md5Kernels, Sha1Kernels, Sha256Engine, Sha256Kernels,
    Sha512Engine, Sha512Kernels, Sm3Kernels,
};

/// Parsed options.
#[derive(Debug)]
pub struct Options {
    quick: bool,
    pipeline: bool,
    json: bool,
    algos: Vec<String>,
    engine: Option<String>,
    sizes: Vec<usize>,
    /// True when `--sizes` was given (CRC32C has its own default sizes).
    sizes_given: bool,
    streams: Vec<usize>,
    rounds: usize,
    plot: Option<crate::plot::Recorder>,
}

pub fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        quick: false,
        pipeline: false,
        json: false,
        algos: vec!["sha256".into()],
        engine: None,
        sizes: vec![64, 4 << 10, 128 << 10],
        sizes_given: false,
        streams: vec![1, 2, 4, 8, 16, 64],
        rounds: 0,
        plot: None,
    };
    let mut streams_given = false;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag {
            "--quick" => o.quick = true,
            "--pipeline" => o.pipeline = true,
            "--json" => o.json = true,
            "--algo" => o.algos = value()?.split(',').map(|s| s.trim().to_string()).collect(),
            "--engine" => o.engine = Some(value()?),
            "--plot" => o.plot = Some(crate::plot::Recorder::new(value()?)),
            "--sizes" => {
                o.sizes = list(&value()?, parse_size)?;
                o.sizes_given = true;
            }
            "--streams" => {
                o.streams = list(&value()?, |s| s.parse().ok())?;
                streams_given = true;
            }
            "--rounds" => {
                o.rounds = value()?
                    .parse()
                    .map_err(|_| "--rounds takes a number".to_string())?
            }
            other => return Err(format!("bench: unknown option '{other}'")),
        }
    }
    if o.pipeline && !streams_given {
        o.streams = vec![1, 2, 4, 8];
    }
    if o.rounds == 0 {
        o.rounds = match (o.pipeline, o.quick) {
            (true, true) => 3,
            (true, false) => 5,
            (false, true) => 5,
            (false, false) => 9,
        };
    }
    if o.streams.contains(&0) {
        return Err("--streams: counts must be at least 1".into());
    }
    if o.pipeline && o.plot.is_some() {
        return Err("--plot draws the throughput grid, not --pipeline".into());
    }
    Ok(o)
}

fn list<T>(s: &str, f: impl Fn(&str) -> Option<T>) -> Result<Vec<T>, String> {
    s.split(',')
        .map(|x| f(x.trim()).ok_or_else(|| format!("cannot parse '{x}'")))
        .collect()
}

/// `64`, `4K`, `128k`, `1M`.
fn parse_size(s: &str) -> Option<usize> {
    let (num, mul) = match s.as_bytes().last()? {
        b'k' | b'K' => (&s[..s.len() - 1], 1 << 10),
        b'm' | b'M' => (&s[..s.len() - 1], 1 << 20),
        _ => (s, 1),
    };
    num.parse::<usize>().ok().map(|n| n * mul)
}

fn human(size: usize) -> String {
    if size >= 1 << 20 && size.is_multiple_of(1 << 20) {
        format!("{} MiB", size >> 20)
    } else if size >= 1 << 10 && size.is_multiple_of(1 << 10) {
        format!("{} KiB", size >> 10)
    } else {
        format!("{size} B")
    }
}

/// One measured row.
struct Row {
    algo: &'static str,
    imp: String,
    engine: String,
    peer: &'static str,
    size: usize,
    streams: usize,
    gbps: f64,
    vs_sha2: Option<f64>,
    /// Against the family's RustCrypto crate (`sha2`, `md-5`, `sha1`, `sm3`).
    vs_rustcrypto: Option<f64>,
    vs_peer: f64,
    /// Against ISA-L's best at this point, when ISA-L was measured.
    vs_isal: Option<f64>,
    /// Against OpenSSL's one-stream digest (`EVP_Digest` per message),
    /// when libcrypto was linked.
    vs_openssl: Option<f64>,
    /// How the implementation was called: `hash_many`, `manager`
    /// (`submit`/`flush`, contexts reused; ISA-L's managers too), `stream`
    /// (mbhash's one-stream hasher through the `digest` traits, a hasher
    /// per buffer) or `oneshot` (a call per buffer).
    api: &'static str,
}

impl Row {
    fn json(&self) -> String {
        let opt = |v: Option<f64>| match v {
            Some(v) => format!("{v:.4}"),
            None => "null".into(),
        };
        let vs_sha2 = opt(self.vs_sha2);
        format!(
            "{{\"algo\":\"{}\",\"impl\":\"{}\",\"engine\":\"{}\",\"size\":{},\"streams\":{},\"gbps\":{:.4},\"vs_sha2\":{},\"vs_rustcrypto\":{},\"vs_peer\":{:.4},\"peer\":\"{}\",\"vs_isal\":{},\"vs_openssl\":{},\"api\":\"{}\"}}",
            self.algo,
            self.imp,
            self.engine,
            self.size,
            self.streams,
            self.gbps,
            vs_sha2,
            opt(self.vs_rustcrypto),
            self.vs_peer,
            self.peer,
            opt(self.vs_isal),
            opt(self.vs_openssl),
            self.api
        )
    }
}

pub fn run(o: &Options) -> Result<(), String> {
    if o.pipeline {
        return crate::pipeline::run(&crate::pipeline::Config {
            quick: o.quick,
            json: o.json,
            algos: &o.algos,
            engine: o.engine.as_deref(),
            writers: &o.streams,
            rounds: o.rounds,
        });
    }
    let started = Instant::now();
    // Per timed sample: long enough to swamp timer noise, short enough that
    // interleaved rounds see the same machine.
    let sample = if o.quick {
        Duration::from_millis(4)
    } else {
        Duration::from_millis(25)
    };
    if !o.json {
        println!(
            "{:<8} {:>9} {:>7}  {:<16} {:>8} {:>8} {:>9}",
            "algo", "size", "streams", "impl", "GB/s", "vs sha2", "vs isal"
        );
    }
    for algo in &o.algos {
        match algo.as_str() {
            "sha256" => {
                let engine = sha256_engine(o)?;
                bench_sha::<alg::Sha256Alg, sha2::Sha256>(o, engine, sample, "sha2")
            }
            "sha224" => {
                let engine = sha256_engine(o)?;
                bench_sha::<alg::Sha224Alg, sha2::Sha224>(o, engine, sample, "sha2")
            }
            "sha512" => {
                let engine = sha512_engine(o)?;
                bench_sha::<alg::Sha512Alg, sha2::Sha512>(o, engine, sample, "sha2")
            }
            "sha384" => {
                let engine = sha512_engine(o)?;
                bench_sha::<alg::Sha384Alg, sha2::Sha384>(o, engine, sample, "sha2")
            }
            "sha512-256" => {
                let engine = sha512_engine(o)?;
                bench_sha::<alg::Sha512_256Alg, sha2::Sha512_256>(o, engine, sample, "sha2")
            }
            "sha512-224" => {
                let engine = sha512_engine(o)?;
                bench_sha::<alg::Sha512_224Alg, sha2::Sha512_224>(o, engine, sample, "sha2")
            }
            "md5" => {
                let engine = engine_for::<Md5Kernels>(o)?;
                bench_sha::<alg::Md5Alg, md5::Md5>(o, engine, sample, "md-5")
            }
            "sha1" => {
                let engine = engine_for::<Sha1Kernels>(o)?;
                bench_sha::<alg::Sha1Alg, sha1::Sha1>(o, engine, sample, "sha1")
            }
            "sm3" => {
                let engine = engine_for::<Sm3Kernels>(o)?;
                bench_sha::<alg::Sm3Alg, sm3::Sm3>(o, engine, sample, "sm3")
            }
            "crc32c" => bench_crc32c(o, sample)?,
            other => match crc::variant(other) {
                Some(v) => crc::bench(o, v, sample)?,
                None => {
                    return Err(format!(
                        "bench: unknown algorithm '{other}' (known: {}, and every named CRC: {})",
                        ALGOS.join(", "),
                        mbhash_core::crc::Variant::ALL
                            .iter()
                            .map(|v| v.name())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            },
        }
    }
    if !o.json {
        println!("({:.1} s)", started.elapsed().as_secs_f64());
    }
    if let Some(plot) = &o.plot {
        plot.write()?;
    }
    Ok(())
}

/// Algorithms `--algo` accepts.
const ALGOS: [&str; 10] = [
    "sha256",
    "sha224",
    "sha512",
    "sha384",
    "sha512-256",
    "sha512-224",
    "md5",
    "sha1",
    "sm3",
    "crc32c",
];

fn engine_for<K: Kernels>(o: &Options) -> Result<Engine<K>, String> {
    match &o.engine {
        Some(name) => Engine::<K>::from_name(name).map_err(|e| e.to_string()),
        None => Engine::<K>::try_configured().map_err(|e| e.to_string()),
    }
}

fn sha256_engine(o: &Options) -> Result<Sha256Engine, String> {
    engine_for::<Sha256Kernels>(o)
}

fn sha512_engine(o: &Options) -> Result<Sha512Engine, String> {
    engine_for::<Sha512Kernels>(o)
}

/// Prints a row as JSON or as a table line.
fn print_row(o: &Options, r: &Row) {
    if let Some(plot) = &o.plot {
        let series = match (r.imp.as_str(), r.api) {
            ("mbhash", "manager") => format!("mbhash/{}/manager", r.engine),
            ("mbhash", "stream") => format!("mbhash/{}/stream", r.engine),
            ("mbhash", _) => format!("mbhash/{}", r.engine),
            ("isal", _) => "isal".to_string(),
            (imp, _) => imp.to_string(),
        };
        plot.record(r.algo, &series, r.size, r.streams, r.gbps);
    }
    if o.json {
        println!("{}", r.json());
        return;
    }
    let imp = match (r.imp.as_str(), r.api) {
        ("mbhash", "manager") => format!("mbhash/{} mgr", r.engine),
        ("mbhash", "stream") => format!("mbhash/{} stream", r.engine),
        ("mbhash" | "isal", _) => format!("{}/{}", r.imp, r.engine),
        _ => r.imp.clone(),
    };
    let mut ratio = match r.vs_sha2 {
        Some(v) => format!("{v:>7.2}x"),
        None => format!("{:>7.2}x vs {}", r.vs_peer, r.peer),
    };
    if let Some(v) = r.vs_isal {
        ratio.push_str(&format!(" {v:>8.2}x"));
    }
    println!(
        "{:<8} {:>9} {:>7}  {:<16} {:>8.3} {ratio}",
        r.algo,
        human(r.size),
        r.streams,
        imp,
        r.gbps,
    );
}

/// CRC32C: mbhash's configured engine against the `crc-fast` crate (the
/// peer of `vs_peer`), the `crc32c` crate and ISA-L's `crc32_iscsi` (when
/// linked: `vs_isal`), one buffer at a time.
fn bench_crc32c(o: &Options, sample: Duration) -> Result<(), String> {
    use mbhash_core::crc32c;
    let engine = match &o.engine {
        Some(name) => crc32c::select_engine(name).map_err(|e| e.to_string())?,
        None => crc32c::configured_engine().map_err(|e| e.to_string())?,
    };
    let isal = mbhash_peers::IsalCrc::new();
    if isal.is_none() {
        mbhash_peers::note_once(mbhash_peers::CRC_MISSING);
    }
    let sizes: Vec<usize> = if o.sizes_given {
        o.sizes.clone()
    } else {
        vec![64, 512, 4 << 10, 64 << 10, 1 << 20]
    };
    for size in sizes {
        let data = &messages(size, 1)[0];
        let kernel = crc32c::Crc32cKernel::new(engine).map_err(|e| e.to_string())?;
        let expected = kernel.append(0, data);
        let fast = crc_fast::checksum(crc_fast::CrcAlgorithm::Crc32Iscsi, data) as u32;
        assert_eq!(expected, fast, "crc-fast disagrees at {size} bytes");
        assert_eq!(
            expected,
            ::crc32c::crc32c(data),
            "crc32c disagrees at {size} bytes"
        );
        if let Some(isal) = isal {
            assert_eq!(
                expected,
                isal.crc32c(data),
                "ISA-L disagrees at {size} bytes"
            );
        }
        let mut ours = || {
            black_box(kernel.append(0, black_box(data)));
        };
        let mut peer = || {
            black_box(crc_fast::checksum(
                crc_fast::CrcAlgorithm::Crc32Iscsi,
                black_box(data),
            ));
        };
        let mut other = || {
            black_box(::crc32c::crc32c(black_box(data)));
        };
        let mut isal_fn = || {
            if let Some(isal) = isal {
                black_box(isal.crc32c(black_box(data)));
            }
        };
        let mut fns: Vec<&mut dyn FnMut()> = vec![&mut ours, &mut peer, &mut other];
        if isal.is_some() {
            fns.push(&mut isal_fn);
        }
        let g: Vec<f64> = measure(o, sample, &mut fns)
            .into_iter()
            .map(|t| size as f64 / t / 1e9)
            .collect();
        let g_isal = g.get(3).copied();
        let mut rows = vec![
            ("mbhash", engine.name(), "crc-fast", g[0]),
            ("crc-fast", "crc-fast", "crc-fast", g[1]),
            ("crc32c", "crc32c", "crc-fast", g[2]),
        ];
        if let Some(gi) = g_isal {
            rows.push(("isal", "crc32_iscsi", "isal", gi));
        }
        for (imp, engine_name, peer, gbps) in rows {
            print_row(
                o,
                &Row {
                    algo: "crc32c",
                    imp: imp.into(),
                    engine: engine_name.into(),
                    peer,
                    size,
                    streams: 1,
                    gbps,
                    vs_sha2: None,
                    vs_rustcrypto: None,
                    vs_peer: if peer == "isal" { 1.0 } else { gbps / g[1] },
                    vs_isal: g_isal.map(|gi| gbps / gi),
                    vs_openssl: None,
                    api: "oneshot",
                },
            );
        }
    }
    Ok(())
}

/// Times each of `fns` in `o.rounds` interleaved rounds of about `sample`
/// each; the median seconds per call of each.
fn measure(o: &Options, sample: Duration, fns: &mut [&mut dyn FnMut()]) -> Vec<f64> {
    let reps: Vec<usize> = fns.iter_mut().map(|f| reps_for(sample, f)).collect();
    let mut t = vec![Vec::with_capacity(o.rounds); fns.len()];
    for _ in 0..o.rounds {
        for (i, f) in fns.iter_mut().enumerate() {
            t[i].push(time(reps[i], f));
        }
    }
    t.into_iter().map(median).collect()
}

/// Median of the samples, in seconds.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs `f` `reps` times and returns seconds per run.
fn time(reps: usize, mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..reps {
        f();
    }
    t.elapsed().as_secs_f64() / reps as f64
}

/// Repetitions of `f` that take about `sample`.
fn reps_for(sample: Duration, mut f: impl FnMut()) -> usize {
    let once = time(1, &mut f).max(1e-7);
    ((sample.as_secs_f64() / once) as usize).clamp(1, 1_000_000)
}

fn messages(size: usize, streams: usize) -> Vec<Vec<u8>> {
    (0..streams)
        .map(|s| {
            (0..size)
                .map(|i| (i as u32).wrapping_mul(2654435761).wrapping_add(s as u32) as u8)
                .collect()
        })
        .collect()
}

/// Hashes `msgs` through a job manager (`submit` ENTIRE, then `flush`) on
/// the contexts `ctxs`, digests into `out`.
fn through_manager<A: HashAlgorithm>(
    engine: <A::Family as FamilyEngine>::Engine,
    msgs: &[&[u8]],
    ctxs: &mut [mbhash_core::Context<A>],
    out: &mut [A::Output],
) {
    let mut m = mbhash_core::JobManager::<A>::with_engine(engine);
    for (c, msg) in ctxs.iter_mut().zip(msgs) {
        if let Some(d) = m
            .submit(c, msg, mbhash_core::Flags::ENTIRE)
            .expect("a valid submit")
        {
            out[d.id() as usize] = d.digest().expect("an ENTIRE job completes");
        }
    }
    while let Some(d) = m.flush() {
        out[d.id() as usize] = d.digest().expect("an ENTIRE job completes");
    }
}

/// One algorithm's grid: mbhash's `hash_many`, `manager` and `stream`
/// rows, the RustCrypto crate `rc` (`P`) of the family, ISA-L crypto's
/// managers where the peers are built for the family.
fn bench_sha<A, P>(
    o: &Options,
    engine: <A::Family as FamilyEngine>::Engine,
    sample: Duration,
    rc: &'static str,
) where
    A: HashAlgorithm,
    P: sha2::Digest,
    mbhash_core::StreamHasher<A>: sha2::digest::Update + sha2::digest::FixedOutput,
{
    use mbhash_peers::{self as isal, Bits, Manager};
    let algo = A::NAME;
    let sha2_rows = rc == "sha2";
    let ssl_name = std::ffi::CString::new(algo.to_ascii_uppercase()).expect("no NUL");
    let openssl = isal::OpenSsl::new(&ssl_name);
    if openssl.is_none() {
        isal::note_once(isal::OPENSSL_MISSING);
    }
    let bits = Bits::for_algo(algo);
    let variants = bits.map(isal::variants).unwrap_or_default();
    if bits.is_some() && variants.is_empty() {
        isal::note_once(isal::CRYPTO_MISSING);
    }
    for &size in &o.sizes {
        for &streams in &o.streams {
            let msgs = messages(size, streams);
            let refs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
            let mut out = vec![A::ZERO_OUTPUT; streams];

            // All produce the same digests: the benchmark measures real work.
            mbhash_core::hash_many_with::<A>(engine, &refs, &mut out);
            for (d, m) in out.iter().zip(&refs) {
                assert_eq!(d.as_ref(), P::digest(m).as_slice(), "digest mismatch");
            }
            // ISA-L's managers: each variant this CPU runs, checked first.
            let mut managers: Vec<(String, Manager, Vec<u8>)> = Vec::new();
            if let Some(bits) = bits {
                for (index, name) in &variants {
                    let Some(mut m) = Manager::new(bits, *index, streams) else {
                        continue;
                    };
                    let mut digests = vec![0u8; streams * bits.digest_len()];
                    m.run(&refs, &mut digests).expect("ISA-L manager");
                    for (d, r) in digests.chunks(bits.digest_len()).zip(&out) {
                        assert_eq!(d, r.as_ref(), "ISA-L {name} digest mismatch");
                    }
                    managers.push((name.clone(), m, digests));
                }
            }

            // OpenSSL's one-shot digest, message after message, checked first.
            let mut ssl_out = vec![0u8; 64];
            if let Some(ssl) = &openssl {
                for (d, m) in out.iter().zip(&refs) {
                    ssl.digest(m, &mut ssl_out);
                    assert_eq!(&ssl_out[..ssl.len()], d.as_ref(), "OpenSSL digest mismatch");
                }
            }
            let mut ours = || {
                mbhash_core::hash_many_with::<A>(engine, black_box(&refs), &mut out);
                black_box(&out);
            };
            // The same messages through `submit` / `flush`, contexts reused.
            let mut ctxs: Vec<mbhash_core::Context<A>> = (0..streams as u64)
                .map(mbhash_core::Context::with_id)
                .collect();
            let mut out_mgr = vec![A::ZERO_OUTPUT; streams];
            through_manager::<A>(engine, &refs, &mut ctxs, &mut out_mgr);
            for (d, m) in out_mgr.iter().zip(&refs) {
                assert_eq!(d.as_ref(), P::digest(m).as_slice(), "digest mismatch");
            }
            let mut manager = || {
                through_manager::<A>(engine, black_box(&refs), &mut ctxs, &mut out_mgr);
                black_box(&out_mgr);
            };
            let mut peer = || {
                for m in &refs {
                    black_box(P::digest(black_box(m)));
                }
            };
            // The one-stream hasher as generic `digest` code drives it (a
            // hasher per message, `update`, the by-value `finalize`), one
            // message after another as the peer.
            let mut stream = || {
                for m in &refs {
                    let mut h = mbhash_core::StreamHasher::<A>::with_engine(engine);
                    sha2::digest::Update::update(&mut h, black_box(m));
                    black_box(sha2::digest::FixedOutput::finalize_fixed(h));
                }
            };
            let mut isal_fns: Vec<_> = managers
                .iter_mut()
                .map(|(_, m, digests)| {
                    let refs = &refs;
                    move || {
                        m.run(black_box(refs), digests).expect("ISA-L manager");
                        black_box(&digests);
                    }
                })
                .collect();
            let mut ssl_fn = || {
                if let Some(ssl) = &openssl {
                    for m in &refs {
                        ssl.digest(black_box(m), &mut ssl_out);
                        black_box(&ssl_out);
                    }
                }
            };
            let mut fns: Vec<&mut dyn FnMut()> =
                vec![&mut ours, &mut peer, &mut manager, &mut stream];
            if openssl.is_some() {
                fns.push(&mut ssl_fn);
            }
            let fixed = fns.len();
            for f in &mut isal_fns {
                fns.push(f);
            }
            let bytes = (size * streams) as f64;
            let g: Vec<f64> = measure(o, sample, &mut fns)
                .into_iter()
                .map(|t| bytes / t / 1e9)
                .collect();
            let (g_ours, g_peer, g_mgr, g_stream) = (g[0], g[1], g[2], g[3]);
            let g_ssl = openssl.as_ref().map(|_| g[4]);
            let vs_openssl = |gbps: f64| g_ssl.map(|gs| gbps / gs);
            // ISA-L's best manager at this point is the peer.
            let best = g[fixed..]
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(b.1))
                .map(|(i, &gi)| (managers[i].0.clone(), gi));
            let g_isal = best.as_ref().map(|b| b.1);
            let vs_isal = |gbps: f64| g_isal.map(|gi| gbps / gi);
            // mbhash's rows of this point, one per way of calling it.
            let ours = |gbps: f64, api: &'static str| Row {
                algo,
                imp: "mbhash".into(),
                engine: engine.name().into(),
                peer: rc,
                size,
                streams,
                gbps,
                vs_sha2: sha2_rows.then_some(gbps / g_peer),
                vs_rustcrypto: Some(gbps / g_peer),
                vs_peer: gbps / g_peer,
                vs_isal: vs_isal(gbps),
                vs_openssl: vs_openssl(gbps),
                api,
            };
            let mut rows = vec![
                ours(g_ours, "hash_many"),
                ours(g_mgr, "manager"),
                ours(g_stream, "stream"),
                Row {
                    algo,
                    imp: rc.into(),
                    engine: rc.into(),
                    peer: rc,
                    size,
                    streams,
                    gbps: g_peer,
                    vs_sha2: sha2_rows.then_some(1.0),
                    vs_rustcrypto: Some(1.0),
                    vs_peer: 1.0,
                    vs_isal: vs_isal(g_peer),
                    vs_openssl: vs_openssl(g_peer),
                    api: "oneshot",
                },
            ];
            if let Some(gs) = g_ssl {
                rows.push(Row {
                    algo,
                    imp: "openssl".into(),
                    engine: "EVP_Digest".into(),
                    peer: rc,
                    size,
                    streams,
                    gbps: gs,
                    vs_sha2: sha2_rows.then_some(gs / g_peer),
                    vs_rustcrypto: Some(gs / g_peer),
                    vs_peer: gs / g_peer,
                    vs_isal: vs_isal(gs),
                    vs_openssl: Some(1.0),
                    api: "oneshot",
                });
            }
            if let Some((name, gi)) = best {
                rows.push(Row {
                    algo,
                    imp: "isal".into(),
                    engine: name,
                    peer: "isal",
                    size,
                    streams,
                    gbps: gi,
                    vs_sha2: sha2_rows.then_some(gi / g_peer),
                    vs_rustcrypto: Some(gi / g_peer),
                    vs_peer: 1.0,
                    vs_isal: Some(1.0),
                    vs_openssl: vs_openssl(gi),
                    api: "manager",
                });
            }
            for r in rows {
                print_row(o, &r);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("64"), Some(64));
        assert_eq!(parse_size("4K"), Some(4096));
        assert_eq!(parse_size("128k"), Some(128 << 10));
        assert_eq!(parse_size("1M"), Some(1 << 20));
        assert_eq!(parse_size("x"), None);
    }

    #[test]
    fn json_rows_carry_vs_isal() {
        let mut r = Row {
            algo: "sha256",
            imp: "isal".into(),
            engine: "avx512".into(),
            peer: "isal",
            size: 4096,
            streams: 16,
            gbps: 3.0,
            vs_sha2: Some(2.0),
            vs_rustcrypto: Some(2.0),
            vs_peer: 1.0,
            vs_isal: Some(1.0),
            vs_openssl: None,
            api: "manager",
        };
        let j = r.json();
        assert!(j.contains("\"impl\":\"isal\",\"engine\":\"avx512\""), "{j}");
        assert!(j.contains("\"peer\":\"isal\",\"vs_isal\":1.0000,"), "{j}");
        assert!(j.ends_with(",\"api\":\"manager\"}"), "{j}");
        r.vs_isal = None;
        assert!(r.json().contains("\"vs_isal\":null,"));
    }

    #[test]
    fn options_parse_and_reject() {
        let args: Vec<String> = ["--quick", "--json", "--sizes", "64,1K", "--streams=1,64"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let o = parse(&args).unwrap();
        assert!(o.quick && o.json);
        assert_eq!(o.sizes, vec![64, 1024]);
        assert_eq!(o.streams, vec![1, 64]);
        assert!(parse(&["--bogus".to_string()]).is_err());
        let p = parse(&["--pipeline".to_string(), "--quick".to_string()]).unwrap();
        assert!(p.pipeline);
        assert_eq!(p.streams, vec![1, 2, 4, 8], "writers");
        assert_eq!(p.rounds, 3);
        assert!(parse(&["--streams".to_string(), "0".to_string()]).is_err());
    }
}
