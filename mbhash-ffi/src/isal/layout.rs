//! The structures C sees, laid out as isa-l_crypto 2.25/2.26 lays them out
//! on x86-64 (and any other LP64 target), and the lane state we keep inside
//! a manager's memory, for its five multi-buffer families (`sha256_mb.h`,
//! `sha512_mb.h`, `md5_mb.h`, `sha1_mb.h`, `sm3_mb.h`).
//!
//! The Rust views of the job and the context are aligned to 8, not to 64 as
//! the C types are: a caller that allocates contexts with plain `malloc`
//! (which isa-l_crypto tolerates) still gets through. Their sizes and field
//! offsets are those of the C types, checked below (and by static asserts
//! in the C tests).

use core::ffi::c_void;
use core::mem::{MaybeUninit, align_of, offset_of, size_of};

use mbhash_core::BlockBuffer;
use mbhash_core::alg::{
    Family, Md5Alg, Md5Family, Sha1Alg, Sha1Family, Sha256Alg, Sha256Family, Sha512Alg,
    Sha512Family, Sm3Alg, Sm3Family,
};
use mbhash_core::engine::{FamilyEngine, HashAlgorithm};

#[cfg(not(feature = "std"))]
use super::engine_cell::EngineCell;
use super::lanes::LaneMgr;

/// What differs between isa-l_crypto's managers.
pub(crate) trait IsalFamily: FamilyEngine {
    /// The algorithm isa-l_crypto computes with this family (its IV).
    type Alg: HashAlgorithm<Family = Self>;
    /// Padding after a job's last field, up to a multiple of 64 bytes.
    type JobTail;
    /// The C manager type (opaque here).
    type Mgr;
    /// The manager's bytes after our lane set (see [`MgrTail`]).
    type MgrTail: Tail;
    /// Lanes of our lane set (`Family::Lanes`): as many as isa-l_crypto's
    /// manager has (16 for SHA-256, SHA-1 and SM3, 8 for SHA-512, 32 for
    /// MD5: `ISAL_MD5_MAX_LANES`, its x16x2 kernel).
    const MAX_LANES: usize;
    /// `sizeof` of the C manager.
    const MGR_SIZE: usize;
    /// `_Alignof` of the C manager.
    const MGR_ALIGN: usize;
    /// Where isa-l_crypto's manager has `lens` and `unused_lanes` (our tag
    /// is over the first 8 bytes of `unused_lanes`).
    const LENS_OFFSET: usize;
    const UNUSED_LANES_OFFSET: usize;
    /// What isa-l_crypto's initialisation (its AVX-512 managers, the
    /// widest, whose lane counts ours are) leaves in (the first word of)
    /// `unused_lanes`: a new manager's tag.
    const READY: u64;
    /// The bytes after the lane set as that initialisation leaves them,
    /// with [`READY`](Self::READY) as the tag.
    const MGR_TAIL: Self::MgrTail;
    /// True if the C job's `len` is a `uint32_t` (MD5, SHA-1; followed by
    /// 4 bytes of padding, where a 64-bit count's other half goes).
    const LEN32: bool;
    /// True if isa-l_crypto's `isal_*_ctx_mgr_submit` refuses a NULL source
    /// by its length (`len != 0`, any flags: SM3) rather than by its flags
    /// (`UPDATE` or `ENTIRE`, any length: the others).
    const NULL_SRC_BY_LENGTH: bool = false;

    /// Turns a finished job's chaining state into what isa-l_crypto leaves
    /// in `result_digest`: the state words themselves, but for SM3, whose
    /// manager stores them byte-swapped (the digest's bytes in memory).
    #[inline]
    fn finish(_state: &mut Self::State) {}

    /// The family's configured engine, looked up once per process (the
    /// kernel-style build; with `std`, `api::engine` reads the core's
    /// default at every call).
    #[cfg(not(feature = "std"))]
    fn engine_cell() -> &'static EngineCell<Self::Engine>;
}

/// The bytes of a C manager after our lane set: `PAD` bytes of `args`
/// that the lane set leaves (zero), the rest of `lens` (`L`, as
/// isa-l_crypto's initialisation sets it, never changed), our tag over
/// `unused_lanes` (its first word for MD5) and, for MD5, its other three
/// words as isa-l_crypto sets them. What follows (`ldata`,
/// `num_lanes_inuse`) is zero. Only the lane set and the tag are ours.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct MgrTail<L: Copy, const PAD: usize, const MORE: usize> {
    _pad: [u8; PAD],
    _lens: L,
    /// The tag: [`IsalFamily::READY`] between calls.
    magic: u64,
    _unused_lanes: [u64; MORE],
}

/// What the lane manager needs of its tail: where the tag is.
pub(crate) trait Tail: Copy {
    /// The tag's offset in the tail.
    const MAGIC_OFFSET: usize;
    /// The tag.
    fn magic_mut(&mut self) -> &mut u64;
}

impl<L: Copy, const PAD: usize, const MORE: usize> Tail for MgrTail<L, PAD, MORE> {
    const MAGIC_OFFSET: usize = offset_of!(Self, magic);

    #[inline]
    fn magic_mut(&mut self) -> &mut u64 {
        &mut self.magic
    }
}

impl<L: Copy, const PAD: usize, const MORE: usize> MgrTail<L, PAD, MORE> {
    const fn new(lens: L, ready: u64, unused_lanes: [u64; MORE]) -> Self {
        Self {
            _pad: [0; PAD],
            _lens: lens,
            magic: ready,
            _unused_lanes: unused_lanes,
        }
    }
}

/// The tail of the managers whose lane set covers `args` and the first 8
/// bytes of `lens` (all but MD5's): the other 56 bytes of `lens`.
type LensTail = MgrTail<[u64; 7], 0, 0>;

/// MD5's tail: `lens[2..32]` (0xFFFFFFFF each; our 32-lane set covers
/// `args` and `lens[0..2]`, where our busy and done masks are, zero in a
/// new manager where isa-l_crypto leaves 0xFFFFFFFF), `unused_lanes[0..4]`.
type Md5Tail = MgrTail<[u32; 30], 0, 3>;

impl IsalFamily for Sha256Family {
    type Alg = Sha256Alg;
    type JobTail = [u8; 16];
    type Mgr = Sha256CtxMgr;
    type MgrTail = LensTail;
    const MAX_LANES: usize = 16;
    const MGR_SIZE: usize = 848;
    const MGR_ALIGN: usize = 16;
    const LENS_OFFSET: usize = 640;
    const UNUSED_LANES_OFFSET: usize = 704;
    const READY: u64 = 0xfedc_ba98_7654_3210;
    const MGR_TAIL: LensTail = LensTail::new([0; 7], Self::READY, []);
    const LEN32: bool = false;

    #[cfg(not(feature = "std"))]
    fn engine_cell() -> &'static EngineCell<Self::Engine> {
        static CELL: EngineCell<mbhash_core::engine::Sha256Engine> = EngineCell::new();
        &CELL
    }
}

impl IsalFamily for Sha512Family {
    type Alg = Sha512Alg;
    type JobTail = [u8; 48];
    type Mgr = Sha512CtxMgr;
    type MgrTail = LensTail;
    const MAX_LANES: usize = 8;
    const MGR_SIZE: usize = 720;
    const MGR_ALIGN: usize = 8;
    const LENS_OFFSET: usize = 576;
    const UNUSED_LANES_OFFSET: usize = 640;
    const READY: u64 = 0x0706_0504_0302_0100;
    const MGR_TAIL: LensTail = LensTail::new([1, 2, 3, 4, 5, 6, 7], Self::READY, []);
    const LEN32: bool = false;

    #[cfg(not(feature = "std"))]
    fn engine_cell() -> &'static EngineCell<Self::Engine> {
        static CELL: EngineCell<mbhash_core::engine::Sha512Engine> = EngineCell::new();
        &CELL
    }
}

impl IsalFamily for Md5Family {
    type Alg = Md5Alg;
    type JobTail = [u8; 32];
    type Mgr = Md5CtxMgr;
    type MgrTail = Md5Tail;
    const MAX_LANES: usize = 32;
    const MGR_SIZE: usize = 1192;
    const MGR_ALIGN: usize = 8;
    const LENS_OFFSET: usize = 768;
    const UNUSED_LANES_OFFSET: usize = 896;
    const READY: u64 = 0x0706_0504_0302_0100;
    const MGR_TAIL: Md5Tail = Md5Tail::new(
        [0xffff_ffff; 30],
        Self::READY,
        [
            0x0f0e_0d0c_0b0a_0908,
            0x1716_1514_1312_1110,
            0x1f1e_1d1c_1b1a_1918,
        ],
    );
    const LEN32: bool = true;

    #[cfg(not(feature = "std"))]
    fn engine_cell() -> &'static EngineCell<Self::Engine> {
        static CELL: EngineCell<mbhash_core::engine::Md5Engine> = EngineCell::new();
        &CELL
    }
}

impl IsalFamily for Sha1Family {
    type Alg = Sha1Alg;
    type JobTail = [u8; 32];
    type Mgr = Sha1CtxMgr;
    type MgrTail = LensTail;
    const MAX_LANES: usize = 16;
    const MGR_SIZE: usize = 656;
    const MGR_ALIGN: usize = 16;
    const LENS_OFFSET: usize = 448;
    const UNUSED_LANES_OFFSET: usize = 512;
    const READY: u64 = 0xfedc_ba98_7654_3210;
    const MGR_TAIL: LensTail = LensTail::new([0; 7], Self::READY, []);
    const LEN32: bool = true;

    #[cfg(not(feature = "std"))]
    fn engine_cell() -> &'static EngineCell<Self::Engine> {
        static CELL: EngineCell<mbhash_core::engine::Sha1Engine> = EngineCell::new();
        &CELL
    }
}

impl IsalFamily for Sm3Family {
    type Alg = Sm3Alg;
    type JobTail = [u8; 16];
    type Mgr = Sm3CtxMgr;
    type MgrTail = LensTail;
    const MAX_LANES: usize = 16;
    const MGR_SIZE: usize = 848;
    const MGR_ALIGN: usize = 8;
    const LENS_OFFSET: usize = 640;
    const UNUSED_LANES_OFFSET: usize = 704;
    const READY: u64 = 0xfedc_ba98_7654_3210;
    const MGR_TAIL: LensTail = LensTail::new([0; 7], Self::READY, []);
    const LEN32: bool = false;
    const NULL_SRC_BY_LENGTH: bool = true;

    #[inline]
    fn finish(state: &mut [u32; 8]) {
        for w in state {
            *w = w.to_be();
        }
    }

    #[cfg(not(feature = "std"))]
    fn engine_cell() -> &'static EngineCell<Self::Engine> {
        static CELL: EngineCell<mbhash_core::engine::Sm3Engine> = EngineCell::new();
        &CELL
    }
}

/// `ISAL_SHA256_HASH_CTX_MGR`: 848 bytes aligned to 16. The C header
/// declares isa-l_crypto's fields so that size and alignment match; what
/// the bytes hold is ours (a [`LaneMgr`] at offset 0).
#[repr(C, align(16))]
pub struct Sha256CtxMgr {
    _opaque: [u8; 848],
}

/// `ISAL_SHA512_HASH_CTX_MGR`: 720 bytes aligned to 8 (see
/// [`Sha256CtxMgr`]).
#[repr(C, align(8))]
pub struct Sha512CtxMgr {
    _opaque: [u8; 720],
}

/// `ISAL_MD5_HASH_CTX_MGR`: 1192 bytes aligned to 8 (see
/// [`Sha256CtxMgr`]). Our lane set has isa-l_crypto's 32 lanes, over
/// `args` and the first 8 bytes of `lens`; the rest holds what
/// isa-l_crypto's initialisation leaves there (see [`MgrTail`]).
#[repr(C, align(8))]
pub struct Md5CtxMgr {
    _opaque: [u8; 1192],
}

/// `ISAL_SHA1_HASH_CTX_MGR`: 656 bytes aligned to 16 (see
/// [`Sha256CtxMgr`]).
#[repr(C, align(16))]
pub struct Sha1CtxMgr {
    _opaque: [u8; 656],
}

/// `ISAL_SM3_HASH_CTX_MGR`: 848 bytes aligned to 8 (see [`Sha256CtxMgr`]).
#[repr(C, align(8))]
pub struct Sm3CtxMgr {
    _opaque: [u8; 848],
}

/// `ISAL_<FAMILY>_JOB`: the scheduler's view of a context.
#[repr(C)]
pub(crate) struct Job<F: IsalFamily> {
    /// The job's data: the caller's buffer or the context's partial block.
    pub buffer: *mut u8,
    /// The job's length in blocks, read and written through
    /// [`Job::blocks`] and [`Job::set_blocks`]: a `uint64_t` in C, or a
    /// `uint32_t` and 4 bytes of padding ([`IsalFamily::LEN32`]).
    len: u64,
    /// C padding (it aligns `result_digest` to 64), where the drop-in keeps
    /// the blocks done while the job is in a lane.
    pub done: u64,
    _gap: MaybeUninit<[u8; 40]>,
    /// The chaining state, as host-order words: the digest once complete
    /// (byte-swapped for SM3, [`IsalFamily::finish`]).
    pub result_digest: F::State,
    /// `ISAL_JOB_STS` (C pads after it to align `user_data`).
    pub status: u32,
    /// The caller's; never touched.
    pub user_data: *mut c_void,
    _tail: MaybeUninit<F::JobTail>,
}

impl<F: IsalFamily> Job<F> {
    /// The C field's value for a count of `n` blocks (fewer than 2^32 for
    /// the 32-bit fields: a chunk's length is a `uint32_t`).
    #[inline]
    const fn encode(n: u64) -> u64 {
        if F::LEN32 && cfg!(target_endian = "big") {
            n << 32
        } else {
            n
        }
    }

    /// Sets the job's length in blocks.
    #[inline]
    pub fn set_blocks(&mut self, n: u64) {
        self.len = Self::encode(n);
    }

    /// The job's length in blocks, read through a raw pointer.
    ///
    /// # Safety
    /// `job` is valid for reads.
    #[inline]
    pub unsafe fn blocks(job: *const Self) -> u64 {
        // SAFETY: the caller's contract; a plain integer read.
        let raw = unsafe { (&raw const (*job).len).read() };
        if F::LEN32 && cfg!(target_endian = "big") {
            raw >> 32
        } else {
            raw
        }
    }
}

/// `ISAL_<FAMILY>_HASH_CTX`: one message stream.
#[repr(C)]
pub(crate) struct HashCtx<F: IsalFamily> {
    /// Must be at offset 0.
    pub job: Job<F>,
    /// `ISAL_HASH_CTX_STS` bits.
    pub status: u32,
    /// `ISAL_HASH_CTX_ERROR`.
    pub error: i32,
    /// Bytes submitted to the stream so far (advanced at submit).
    pub total_length: u64,
    /// What is left of the chunk being submitted.
    pub incoming_buffer: *const u8,
    /// Bytes left at `incoming_buffer`.
    pub incoming_buffer_length: u32,
    /// `partial_block_buffer` (a partial block between chunks; the
    /// padding at the end) and `partial_block_buffer_length`: the core's
    /// buffer, whose `#[repr(C)]` layout is those two fields.
    pub partial: BlockBuffer<F>,
    /// The caller's; never touched.
    pub user_data: *mut c_void,
    /// C pads the context to a multiple of 64.
    _tail: MaybeUninit<[u8; 24]>,
}

/// The C layouts, as isa-l_crypto 2.25/2.26 has them on LP64 targets.
const _: () = {
    type J256 = Job<Sha256Family>;
    type J512 = Job<Sha512Family>;
    type C256 = HashCtx<Sha256Family>;
    type C512 = HashCtx<Sha512Family>;

    assert!(size_of::<J256>() == 128);
    assert!(offset_of!(J256, buffer) == 0);
    assert!(offset_of!(J256, len) == 8);
    assert!(offset_of!(J256, result_digest) == 64);
    assert!(offset_of!(J256, status) == 96);
    assert!(offset_of!(J256, user_data) == 104);
    assert!(size_of::<C256>() == 320);
    assert!(offset_of!(C256, job) == 0);
    assert!(offset_of!(C256, status) == 128);
    assert!(offset_of!(C256, error) == 132);
    assert!(offset_of!(C256, total_length) == 136);
    assert!(offset_of!(C256, incoming_buffer) == 144);
    assert!(offset_of!(C256, incoming_buffer_length) == 152);
    // `partial_block_buffer` at 156, `partial_block_buffer_length` (the
    // buffer's last 4 bytes) at 284.
    assert!(offset_of!(C256, partial) == 156);
    assert!(size_of::<BlockBuffer<Sha256Family>>() == 128 + 4);
    assert!(offset_of!(C256, user_data) == 288);

    assert!(size_of::<J512>() == 192);
    assert!(offset_of!(J512, buffer) == 0);
    assert!(offset_of!(J512, len) == 8);
    assert!(offset_of!(J512, result_digest) == 64);
    assert!(offset_of!(J512, status) == 128);
    assert!(offset_of!(J512, user_data) == 136);
    assert!(size_of::<C512>() == 512);
    assert!(offset_of!(C512, job) == 0);
    assert!(offset_of!(C512, status) == 192);
    assert!(offset_of!(C512, error) == 196);
    assert!(offset_of!(C512, total_length) == 200);
    assert!(offset_of!(C512, incoming_buffer) == 208);
    assert!(offset_of!(C512, incoming_buffer_length) == 216);
    assert!(offset_of!(C512, partial) == 220);
    assert!(size_of::<BlockBuffer<Sha512Family>>() == 256 + 4);
    assert!(offset_of!(C512, user_data) == 480);

    assert!(align_of::<C256>() == CTX_ALIGN && align_of::<C512>() == CTX_ALIGN);

    // MD5, SHA-1, SM3: the jobs differ in `len` (32 bits for MD5 and
    // SHA-1) and the digest's words; the contexts are SHA-256's.
    assert!(size_of::<Job<Md5Family>>() == 128);
    assert!(offset_of!(Job<Md5Family>, result_digest) == 64);
    assert!(offset_of!(Job<Md5Family>, status) == 80);
    assert!(offset_of!(Job<Md5Family>, user_data) == 88);
    assert!(size_of::<Job<Sha1Family>>() == 128);
    assert!(offset_of!(Job<Sha1Family>, result_digest) == 64);
    assert!(offset_of!(Job<Sha1Family>, status) == 84);
    assert!(offset_of!(Job<Sha1Family>, user_data) == 88);
    assert!(size_of::<Job<Sm3Family>>() == 128);
    assert!(offset_of!(Job<Sm3Family>, result_digest) == 64);
    assert!(offset_of!(Job<Sm3Family>, status) == 96);
    assert!(offset_of!(Job<Sm3Family>, user_data) == 104);
    assert!(offset_of!(Job<Md5Family>, len) == 8 && offset_of!(Job<Sha1Family>, len) == 8);
    assert!(offset_of!(Job<Sm3Family>, len) == 8);
    assert!(size_of::<HashCtx<Md5Family>>() == 320);
    assert!(offset_of!(HashCtx<Md5Family>, partial) == 156);
    assert!(offset_of!(HashCtx<Md5Family>, user_data) == 288);
    assert!(size_of::<HashCtx<Sha1Family>>() == 320);
    assert!(offset_of!(HashCtx<Sha1Family>, partial) == 156);
    assert!(offset_of!(HashCtx<Sha1Family>, user_data) == 288);
    assert!(size_of::<HashCtx<Sm3Family>>() == 320);
    assert!(offset_of!(HashCtx<Sm3Family>, partial) == 156);
    assert!(offset_of!(HashCtx<Sm3Family>, user_data) == 288);

    // Our lane state fits in the caller's manager and its alignment.
    assert!(size_of::<Sha256CtxMgr>() == Sha256Family::MGR_SIZE);
    assert!(align_of::<Sha256CtxMgr>() == Sha256Family::MGR_ALIGN);
    assert!(size_of::<Sha512CtxMgr>() == Sha512Family::MGR_SIZE);
    assert!(align_of::<Sha512CtxMgr>() == Sha512Family::MGR_ALIGN);
    assert!(size_of::<Md5CtxMgr>() == Md5Family::MGR_SIZE);
    assert!(align_of::<Md5CtxMgr>() == Md5Family::MGR_ALIGN);
    assert!(size_of::<Sha1CtxMgr>() == Sha1Family::MGR_SIZE);
    assert!(align_of::<Sha1CtxMgr>() == Sha1Family::MGR_ALIGN);
    assert!(size_of::<Sm3CtxMgr>() == Sm3Family::MGR_SIZE);
    assert!(align_of::<Sm3CtxMgr>() == Sm3Family::MGR_ALIGN);
    // Over isa-l_crypto's fields as `LaneMgr` says: the lane set over
    // `args` and the first 8 bytes of `lens`, the tag over `unused_lanes`.
    assert!(lane_mgr_fits::<Sha256Family>());
    assert!(lane_mgr_fits::<Sha512Family>());
    assert!(lane_mgr_fits::<Sha1Family>());
    assert!(lane_mgr_fits::<Sm3Family>());
    assert!(lane_mgr_fits::<Md5Family>());
    assert!(Md5Family::MAX_LANES == Md5Family::LANES);
    assert!(size_of::<LaneMgr<Sha256Family>>() == 712);
    assert!(size_of::<LaneMgr<Sha512Family>>() == 648);
    assert!(size_of::<LaneMgr<Md5Family>>() == 928);
    assert!(size_of::<LaneMgr<Sha1Family>>() == 520);
    assert!(size_of::<LaneMgr<Sm3Family>>() == 712);
};

/// True if `F`'s lane manager lies over the C manager as [`LaneMgr`] says:
/// within its size and alignment, the lane set over `args` and the first 8
/// bytes of `lens`, the tag over `unused_lanes`.
const fn lane_mgr_fits<F: IsalFamily>() -> bool {
    let set_ok = LaneMgr::<F>::SET_SIZE == F::LENS_OFFSET + 8;
    set_ok
        && size_of::<LaneMgr<F>>() <= F::MGR_SIZE
        && align_of::<LaneMgr<F>>() == MGR_ALIGN
        && LaneMgr::<F>::MAGIC_OFFSET == F::UNUSED_LANES_OFFSET
}

/// The alignment a context pointer must have (the C type's is 64; we need
/// 8).
pub(crate) const CTX_ALIGN: usize = 8;
/// The alignment a manager pointer must have (the C types' are 16 and 8;
/// we need 8).
pub(crate) const MGR_ALIGN: usize = 8;
