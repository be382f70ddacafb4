//! `mbhash bench --algo <crc>` for every named CRC but CRC32C's own rows
//! (`--algo crc32c`, in the parent): mbhash's kernel for the variant
//! against `crc-fast` (`vs_peer`, `vs_crc_fast`), ISA-L's function for the
//! variant (`vs_isal`, when linked and ISA-L has one), and for
//! CRC-32/ISO-HDLC libdeflate's `libdeflate_crc32` (`vs_libdeflate`) and
//! zlib's `crc32` (`vs_zlib`), one buffer at a time, in one run of
//! interleaved rounds. A peer not linked is said once on stderr; its
//! ratio is `null`.

use std::hint::black_box;
use std::time::Duration;

use mbhash_core::crc::{CrcKernel, CrcSpec, Variant, select_engine};
use mbhash_peers::{IsalCrc, IsalCrcFn, Libdeflate, Zlib};

use super::{Options, human, measure, messages};

/// The named CRC `name` benchmarks as, if it is one.
pub(super) fn variant(name: &str) -> Option<Variant> {
    Variant::from_name(name)
}

/// How `crc-fast` computes a variant: its own algorithm (`checksum`) where
/// it has one, else the variant's parameters (`checksum_with_params`).
enum Fast {
    Own(crc_fast::CrcAlgorithm),
    Params(Box<crc_fast::CrcParams>),
}

impl Fast {
    #[inline]
    fn checksum(&self, data: &[u8]) -> u64 {
        match self {
            Fast::Own(a) => crc_fast::checksum(*a, data),
            Fast::Params(p) => crc_fast::checksum_with_params(**p, data),
        }
    }
}

/// `crc-fast`'s way to a variant.
fn crc_fast_of(v: Variant) -> Fast {
    use crc_fast::CrcAlgorithm as A;
    let own = match v {
        Variant::Crc32IsoHdlc => Some(A::Crc32IsoHdlc),
        Variant::Crc32Bzip2 => Some(A::Crc32Bzip2),
        Variant::Crc32Cksum => Some(A::Crc32Cksum),
        Variant::Crc32Iscsi => Some(A::Crc32Iscsi),
        Variant::Crc64Nvme => Some(A::Crc64Nvme),
        Variant::Crc64Xz => Some(A::Crc64Xz),
        Variant::Crc64Ecma182 => Some(A::Crc64Ecma182),
        Variant::Crc64We => Some(A::Crc64We),
        Variant::Crc64GoIso => Some(A::Crc64GoIso),
        Variant::Crc64Redis => Some(A::Crc64Redis),
        Variant::Crc16T10Dif => Some(A::Crc16T10Dif),
        Variant::Crc64IsoNorm
        | Variant::Crc64JonesRefl
        | Variant::Crc64JonesNorm
        | Variant::Crc64RocksoftNorm => None,
    };
    match own {
        Some(a) => Fast::Own(a),
        None => {
            let s: &CrcSpec = v.spec();
            Fast::Params(Box::new(crc_fast::CrcParams::new(
                s.name, s.width, s.poly, s.init, s.refin, s.xorout, s.check,
            )))
        }
    }
}

/// One measured CRC row.
struct CrcRow {
    algo: &'static str,
    imp: &'static str,
    engine: String,
    size: usize,
    gbps: f64,
    vs_crc_fast: f64,
    vs_isal: Option<f64>,
    vs_libdeflate: Option<f64>,
    vs_zlib: Option<f64>,
}

impl CrcRow {
    /// The parent's fields (`peer` is `crc-fast`, `vs_peer` the ratio to
    /// it; `vs_sha2`, `vs_rustcrypto` and `vs_openssl` null) and this
    /// bench's four ratios.
    fn json(&self) -> String {
        let opt = |v: Option<f64>| match v {
            Some(v) => format!("{v:.4}"),
            None => "null".into(),
        };
        format!(
            "{{\"algo\":\"{}\",\"impl\":\"{}\",\"engine\":\"{}\",\"size\":{},\"streams\":1,\"gbps\":{:.4},\"vs_sha2\":null,\"vs_rustcrypto\":null,\"vs_peer\":{:.4},\"peer\":\"crc-fast\",\"vs_isal\":{},\"vs_openssl\":null,\"api\":\"oneshot\",\"vs_crc_fast\":{:.4},\"vs_libdeflate\":{},\"vs_zlib\":{}}}",
            self.algo,
            self.imp,
            self.engine,
            self.size,
            self.gbps,
            self.vs_crc_fast,
            opt(self.vs_isal),
            self.vs_crc_fast,
            opt(self.vs_libdeflate),
            opt(self.vs_zlib),
        )
    }

    fn print(&self, o: &Options) {
        if let Some(plot) = &o.plot {
            let series = match self.imp {
                "mbhash" => format!("mbhash/{}", self.engine),
                imp => imp.to_string(),
            };
            plot.record(self.algo, &series, self.size, 1, self.gbps);
        }
        if o.json {
            println!("{}", self.json());
            return;
        }
        let imp = match self.imp {
            "mbhash" | "isal" => format!("{}/{}", self.imp, self.engine),
            imp => imp.to_string(),
        };
        let mut ratio = format!("{:>7.2}x vs crc-fast", self.vs_crc_fast);
        for (name, v) in [
            ("isal", self.vs_isal),
            ("libdeflate", self.vs_libdeflate),
            ("zlib", self.vs_zlib),
        ] {
            if let Some(v) = v {
                ratio.push_str(&format!(" {v:>6.2}x vs {name}"));
            }
        }
        println!(
            "{:<8} {:>9} {:>7}  {:<16} {:>8.3} {ratio}",
            self.algo,
            human(self.size),
            1,
            imp,
            self.gbps,
        );
    }
}

/// The rows of variant `v` at each size (`--sizes`, else 64 B to 1 MiB).
pub(super) fn bench(o: &Options, v: Variant, sample: Duration) -> Result<(), String> {
    let spec = v.spec();
    let consts = v.consts();
    let engine = match &o.engine {
        Some(name) => select_engine(name).map_err(|e| e.to_string())?,
        None => mbhash_core::crc::configured_engine().map_err(|e| e.to_string())?,
    };
    let kernel = CrcKernel::new_for(spec, engine).map_err(|e| e.to_string())?;
    let isal_fn = IsalCrcFn::for_variant(v.name());
    let isal = match (IsalCrc::new(), isal_fn) {
        (Some(i), Some(f)) if i.has(f) => Some((i, f)),
        (None, Some(_)) => {
            mbhash_peers::note_once(mbhash_peers::CRC_MISSING);
            None
        }
        _ => None,
    };
    let iso_hdlc = v == Variant::Crc32IsoHdlc;
    let libdeflate = Libdeflate::new().filter(|_| iso_hdlc);
    let zlib = Zlib::new().filter(|_| iso_hdlc);
    if iso_hdlc && libdeflate.is_none() {
        mbhash_peers::note_once(mbhash_peers::LIBDEFLATE_MISSING);
    }
    if iso_hdlc && zlib.is_none() {
        mbhash_peers::note_once(mbhash_peers::ZLIB_MISSING);
    }
    let fast = crc_fast_of(v);
    let sizes: Vec<usize> = if o.sizes_given {
        o.sizes.clone()
    } else {
        vec![64, 512, 4 << 10, 64 << 10, 1 << 20]
    };
    let ours_of =
        |d: &[u8]| spec.finish_register(kernel.update_register(consts, spec.init_register(), d));
    for size in sizes {
        let data = &messages(size, 1)[0];
        // Every peer computes the same value: the bench measures real work.
        let expected = ours_of(data);
        let check = |who: &str, got: u64| {
            if got == expected {
                Ok(())
            } else {
                Err(format!(
                    "bench: {who} disagrees on {} at {size} bytes: {got:#x}, mbhash {expected:#x}",
                    v.name()
                ))
            }
        };
        check("crc-fast", fast.checksum(data))?;
        if let Some((i, f)) = isal {
            check(f.name(), i.checksum(f, data).unwrap_or(!expected))?;
        }
        if let Some(l) = libdeflate {
            check("libdeflate", u64::from(l.crc32(data)))?;
        }
        if let Some(z) = zlib {
            check("zlib", u64::from(z.crc32(data)))?;
        }
        let mut ours = || {
            black_box(ours_of(black_box(data)));
        };
        let mut peer = || {
            black_box(fast.checksum(black_box(data)));
        };
        let mut isal_run = || {
            if let Some((i, f)) = isal {
                black_box(i.checksum(f, black_box(data)));
            }
        };
        let mut deflate_run = || {
            if let Some(l) = libdeflate {
                black_box(l.crc32(black_box(data)));
            }
        };
        let mut zlib_run = || {
            if let Some(z) = zlib {
                black_box(z.crc32(black_box(data)));
            }
        };
        // The peers present, in this order after ours and crc-fast.
        let mut fns: Vec<&mut dyn FnMut()> = vec![&mut ours, &mut peer];
        let mut slot = [None; 3];
        for (k, (present, f)) in [
            (isal.is_some(), &mut isal_run as &mut dyn FnMut()),
            (libdeflate.is_some(), &mut deflate_run),
            (zlib.is_some(), &mut zlib_run),
        ]
        .into_iter()
        .enumerate()
        {
            if present {
                slot[k] = Some(fns.len());
                fns.push(f);
            }
        }
        let g: Vec<f64> = measure(o, sample, &mut fns)
            .into_iter()
            .map(|t| size as f64 / t / 1e9)
            .collect();
        let [g_isal, g_deflate, g_zlib] = slot.map(|s| s.map(|i| g[i]));
        let row = |imp: &'static str, engine: String, gbps: f64| CrcRow {
            algo: v.name(),
            imp,
            engine,
            size,
            gbps,
            vs_crc_fast: gbps / g[1],
            vs_isal: g_isal.map(|x| gbps / x),
            vs_libdeflate: g_deflate.map(|x| gbps / x),
            vs_zlib: g_zlib.map(|x| gbps / x),
        };
        let ours_engine = match engine {
            mbhash_core::crc::CrcEngine::Auto if v != Variant::Crc32Iscsi => format!(
                "auto:{}",
                mbhash_core::crc::auto_choices()
                    .choice_for(spec.refin, size)
                    .name()
            ),
            e => e.name().to_string(),
        };
        let mut rows = vec![
            row("mbhash", ours_engine, g[0]),
            row("crc-fast", "crc-fast".into(), g[1]),
        ];
        if let (Some((_, f)), Some(x)) = (isal, g_isal) {
            rows.push(row("isal", f.name().into(), x));
        }
        if let Some(x) = g_deflate {
            rows.push(row("libdeflate", "libdeflate_crc32".into(), x));
        }
        if let Some(x) = g_zlib {
            rows.push(row("zlib", "crc32".into(), x));
        }
        for r in rows {
            r.print(o);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_agrees_with_crc_fast_and_names_isal_rightly() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 + 3) as u8).collect();
        for &v in Variant::ALL {
            assert_eq!(
                crc_fast_of(v).checksum(b"123456789"),
                v.spec().check,
                "{}",
                v.name()
            );
            assert_eq!(
                crc_fast_of(v).checksum(&data),
                v.checksum(&data),
                "{}",
                v.name()
            );
            assert_eq!(variant(v.name()), Some(v));
        }
        // Where ISA-L is linked, its function for each variant computes it.
        if let Some(i) = IsalCrc::new() {
            for &v in Variant::ALL {
                if let Some(f) = IsalCrcFn::for_variant(v.name())
                    && let Some(got) = i.checksum(f, &data)
                {
                    assert_eq!(got, v.checksum(&data), "{} against {}", v.name(), f.name());
                }
            }
        }
    }

    #[test]
    fn json_rows_carry_the_crc_ratios() {
        let mut r = CrcRow {
            algo: "crc32",
            imp: "mbhash",
            engine: "auto:vpclmul512".into(),
            size: 64,
            gbps: 10.0,
            vs_crc_fast: 2.0,
            vs_isal: Some(1.5),
            vs_libdeflate: Some(1.25),
            vs_zlib: None,
        };
        let j = r.json();
        assert!(
            j.contains(
                "\"vs_peer\":2.0000,\"peer\":\"crc-fast\",\"vs_isal\":1.5000,\"vs_openssl\":null,"
            ),
            "{j}"
        );
        assert!(
            j.ends_with("\"vs_crc_fast\":2.0000,\"vs_libdeflate\":1.2500,\"vs_zlib\":null}"),
            "{j}"
        );
        r.vs_isal = None;
        assert!(r.json().contains("\"vs_isal\":null,"));
    }
}
