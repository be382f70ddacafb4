//! The structures C sees, laid out as isa-l_crypto 2.25/2.26 lays them out
//! on x86-64 (and any other LP64 target), and the lane state we keep inside
//! a manager's memory.
//!
//! The Rust views of the job and the context are aligned to 8, not to 64 as
//! the C types are: a caller that allocates contexts with plain `malloc`
//! (which isa-l_crypto tolerates) still gets through. Their sizes and field
//! offsets are those of the C types, checked below (and by static asserts
//! in the C tests).

use core::ffi::c_void;
use core::mem::{MaybeUninit, align_of, offset_of, size_of};

use mbhash_core::BlockBuffer;
use mbhash_core::alg::{Algorithm, Family, Sha256Alg, Sha256Family, Sha512Alg, Sha512Family};

#[cfg(not(feature = "std"))]
use super::engine_cell::EngineCell;
use super::lanes::LaneMgr;

/// What differs between isa-l_crypto's SHA-256 and SHA-512 managers.
pub(crate) trait IsalFamily: Family {
    /// The algorithm isa-l_crypto computes with this family (its IV).
    type Alg: Algorithm<Family = Self>;
    /// Padding after a job's last field, up to a multiple of 64 bytes.
    type JobTail;
    /// The C manager type (opaque here).
    type Mgr;
    /// Lanes of isa-l_crypto's manager: 16 for SHA-256, 8 for SHA-512,
    /// the lane count of the family's lane sets (`Family::Lanes`).
    const MAX_LANES: usize;
    /// `sizeof` of the C manager.
    const MGR_SIZE: usize;
    /// `_Alignof` of the C manager.
    const MGR_ALIGN: usize;
    /// Where isa-l_crypto's manager has `lens` and `unused_lanes`.
    const LENS_OFFSET: usize;
    const UNUSED_LANES_OFFSET: usize;
    /// What isa-l_crypto's initialisation (its AVX-512 managers, the
    /// widest, whose lane counts ours are) leaves in `unused_lanes`: a new
    /// manager's tag.
    const READY: u64;
    /// What it leaves in the 56 bytes of `lens` after the first 8 (which
    /// are zero, where the lane set keeps its masks): zero for SHA-256,
    /// `lens[j] = j` for SHA-512.
    const LENS_TAIL: [u64; 7];

    /// The family's configured engine, looked up once per process (the
    /// kernel-style build; with `std`, `api::engine` reads the core's
    /// default at every call).
    #[cfg(not(feature = "std"))]
    fn engine_cell() -> &'static EngineCell<Self::Engine>;
}

impl IsalFamily for Sha256Family {
    type Alg = Sha256Alg;
    type JobTail = [u8; 16];
    type Mgr = Sha256CtxMgr;
    const MAX_LANES: usize = 16;
    const MGR_SIZE: usize = 848;
    const MGR_ALIGN: usize = 16;
    const LENS_OFFSET: usize = 640;
    const UNUSED_LANES_OFFSET: usize = 704;
    const READY: u64 = 0xfedc_ba98_7654_3210;
    const LENS_TAIL: [u64; 7] = [0; 7];

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
    const MAX_LANES: usize = 8;
    const MGR_SIZE: usize = 720;
    const MGR_ALIGN: usize = 8;
    const LENS_OFFSET: usize = 576;
    const UNUSED_LANES_OFFSET: usize = 640;
    const READY: u64 = 0x0706_0504_0302_0100;
    const LENS_TAIL: [u64; 7] = [1, 2, 3, 4, 5, 6, 7];

    #[cfg(not(feature = "std"))]
    fn engine_cell() -> &'static EngineCell<Self::Engine> {
        static CELL: EngineCell<mbhash_core::engine::Sha512Engine> = EngineCell::new();
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

/// `ISAL_SHA256_JOB` / `ISAL_SHA512_JOB`: the scheduler's view of a context.
#[repr(C)]
pub(crate) struct Job<F: IsalFamily> {
    /// The job's data: the caller's buffer or the context's partial block.
    pub buffer: *mut u8,
    /// The job's length in blocks.
    pub len: u64,
    /// C padding (it aligns `result_digest` to 64), where the drop-in keeps
    /// the blocks done while the job is in a lane.
    pub done: u64,
    _gap: MaybeUninit<[u8; 40]>,
    /// The chaining state, as host-order words: the digest once complete.
    pub result_digest: F::State,
    /// `ISAL_JOB_STS`.
    pub status: u32,
    _gap2: MaybeUninit<[u8; 4]>,
    /// The caller's; never touched.
    pub user_data: *mut c_void,
    _tail: MaybeUninit<F::JobTail>,
}

/// `ISAL_SHA256_HASH_CTX` / `ISAL_SHA512_HASH_CTX`: one message stream.
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

    // Our lane state fits in the caller's manager and its alignment.
    assert!(size_of::<Sha256CtxMgr>() == Sha256Family::MGR_SIZE);
    assert!(align_of::<Sha256CtxMgr>() == Sha256Family::MGR_ALIGN);
    assert!(size_of::<Sha512CtxMgr>() == Sha512Family::MGR_SIZE);
    assert!(align_of::<Sha512CtxMgr>() == Sha512Family::MGR_ALIGN);
    assert!(size_of::<LaneMgr<Sha256Family>>() <= Sha256Family::MGR_SIZE);
    assert!(size_of::<LaneMgr<Sha512Family>>() <= Sha512Family::MGR_SIZE);
    // Over isa-l_crypto's fields as `LaneMgr` says: the lane set over
    // `args` and the first 8 bytes of `lens`, the tag over `unused_lanes`.
    assert!(LaneMgr::<Sha256Family>::SET_SIZE == Sha256Family::LENS_OFFSET + 8);
    assert!(LaneMgr::<Sha512Family>::SET_SIZE == Sha512Family::LENS_OFFSET + 8);
    assert!(LaneMgr::<Sha256Family>::MAGIC_OFFSET == Sha256Family::UNUSED_LANES_OFFSET);
    assert!(LaneMgr::<Sha512Family>::MAGIC_OFFSET == Sha512Family::UNUSED_LANES_OFFSET);
    assert!(size_of::<LaneMgr<Sha256Family>>() == 712);
    assert!(size_of::<LaneMgr<Sha512Family>>() == 648);
    assert!(align_of::<LaneMgr<Sha256Family>>() == MGR_ALIGN);
    assert!(align_of::<LaneMgr<Sha512Family>>() == MGR_ALIGN);
};

/// The alignment a context pointer must have (the C type's is 64; we need
/// 8).
pub(crate) const CTX_ALIGN: usize = 8;
/// The alignment a manager pointer must have (the C types' are 16 and 8;
/// we need 8).
pub(crate) const MGR_ALIGN: usize = 8;
