//! The job manager: independent hash jobs packed into SIMD lanes.
//!
//! The model is ISA-L crypto's multi-buffer context manager:
//!
//! * a [`Context`] holds one message stream (chaining state, a partial block,
//!   the total length); it lives in the caller's memory;
//! * [`JobManager::submit`] hands a context and a chunk of data to the
//!   manager, which puts it in a free lane. While lanes are free it returns
//!   `None` at once. When every lane is busy it runs the kernels over all
//!   lanes for as many blocks as the shortest lane has, until one job is
//!   done, and returns that job's context;
//! * [`JobManager::flush`] runs the partly filled lanes until one job is done
//!   and returns it; `None` when the manager is empty.
//!
//! Jobs come back out of order, each exactly once. A context is a multi-part
//! stream: submit it with [`Flags::FIRST`], then [`Flags::UPDATE`] any
//! number of times, then [`Flags::LAST`] (or once with [`Flags::ENTIRE`]),
//! each time waiting for it to come back before submitting it again.
//!
//! The manager borrows the contexts and the data for its lifetime `'a`, so
//! neither can be touched, moved or freed while a job is in flight, and a
//! context still in flight cannot be submitted again: it is borrowed. The only
//! bytes copied are a partial block and the padding (at most two blocks per
//! job). Nothing is allocated, by the manager or per job.
//!
//! ```
//! use mbhash_core::{Flags, Sha256Context, Sha256Manager};
//!
//! let messages: [&[u8]; 3] = [b"abc", b"", &[7u8; 1000]];
//! let mut contexts: Vec<Sha256Context> = (0..3).map(Sha256Context::with_id).collect();
//! let mut digests = [[0u8; 32]; 3];
//! let mut manager = Sha256Manager::new();
//! for (ctx, msg) in contexts.iter_mut().zip(messages) {
//!     if let Some(done) = manager.submit(ctx, msg, Flags::ENTIRE).unwrap() {
//!         digests[done.id() as usize] = done.digest().unwrap();
//!     }
//! }
//! while let Some(done) = manager.flush() {
//!     digests[done.id() as usize] = done.digest().unwrap();
//! }
//! assert_eq!(digests[0][..4], [0xba, 0x78, 0x16, 0xbf]);
//! ```
//!
//! Submitting a context that is still in flight does not compile: the
//! manager holds the only mutable borrow until the context comes back.
//!
//! ```compile_fail,E0499
//! use mbhash_core::{Flags, Sha256Context, Sha256Manager};
//! let mut ctx = Sha256Context::new();
//! let mut manager = Sha256Manager::new();
//! let _ = manager.submit(&mut ctx, b"abc", Flags::FIRST);
//! let _ = manager.submit(&mut ctx, b"def", Flags::UPDATE); // still borrowed
//! ```

use core::fmt;
use core::ops::BitOr;

use crate::alg::{BlockOf, Family, StateOf};
use crate::buffer::BlockBuffer;
use crate::engine::{EngineError, LaneEngine};
use crate::engine::{FamilyEngine, HashAlgorithm};
use crate::lanes::{FamilySet, LaneCount, LaneJob, LaneSet};

/// How a chunk relates to its stream (values as in ISA-L crypto).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Flags(u32);

impl Flags {
    /// A middle chunk of a stream that has begun.
    pub const UPDATE: Flags = Flags(0);
    /// The first chunk: (re)starts the stream.
    pub const FIRST: Flags = Flags(1);
    /// The last chunk: pads and finishes the digest.
    pub const LAST: Flags = Flags(2);
    /// A whole message in one chunk: `FIRST | LAST`.
    pub const ENTIRE: Flags = Flags(3);

    /// Flags from raw bits, as a C caller passes them. Any bit other than
    /// FIRST and LAST makes the flags invalid, which `submit` reports.
    pub const fn from_bits(bits: u32) -> Flags {
        Flags(bits)
    }

    /// The raw bits.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// True unless unknown bits are set.
    pub const fn is_valid(self) -> bool {
        self.0 & !3 == 0
    }

    /// True if FIRST is set.
    pub const fn is_first(self) -> bool {
        self.0 & 1 != 0
    }

    /// True if LAST is set.
    pub const fn is_last(self) -> bool {
        self.0 & 2 != 0
    }
}

impl BitOr for Flags {
    type Output = Flags;
    fn bitor(self, rhs: Flags) -> Flags {
        Flags(self.0 | rhs.0)
    }
}

impl fmt::Debug for Flags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            0 => f.write_str("UPDATE"),
            1 => f.write_str("FIRST"),
            2 => f.write_str("LAST"),
            3 => f.write_str("ENTIRE"),
            b => write!(f, "Flags({b:#x})"),
        }
    }
}

/// Where a context is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Never submitted, or reset: no stream open.
    New,
    /// A stream is open and waiting for its next chunk (UPDATE or LAST).
    Idle,
    /// Held by a manager; comes back from `submit` or `flush`.
    Processing,
    /// The stream is finished; [`Context::digest`] has its digest.
    Complete,
}

/// Why a submit was refused. The context comes back unchanged (but for its
/// [`Context::error`]) and the manager is untouched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Flags other than FIRST, UPDATE, LAST and ENTIRE.
    InvalidFlags,
    /// The context is still in flight in a manager (possible only when that
    /// manager was dropped or forgotten before the context came back).
    AlreadyProcessing,
    /// UPDATE or LAST on a context with no open stream (new or finished):
    /// start it with FIRST or ENTIRE.
    AlreadyCompleted,
    /// The stream's total length would exceed `u64::MAX` bytes.
    LengthOverflow,
}

impl ErrorKind {
    /// A one-line description.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::InvalidFlags => "invalid flags: use FIRST, UPDATE, LAST or ENTIRE",
            ErrorKind::AlreadyProcessing => "context is already being processed",
            ErrorKind::AlreadyCompleted => {
                "context has no open stream (new or completed): submit it with FIRST or ENTIRE"
            }
            ErrorKind::LengthOverflow => "total stream length exceeds u64::MAX bytes",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl core::error::Error for ErrorKind {}

/// A refused submit: the reason and the context, handed back.
pub struct SubmitError<'a, A: HashAlgorithm> {
    kind: ErrorKind,
    ctx: &'a mut Context<A>,
}

impl<'a, A: HashAlgorithm> SubmitError<'a, A> {
    /// Why it was refused.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The context that was submitted.
    pub fn into_context(self) -> &'a mut Context<A> {
        self.ctx
    }
}

impl<A: HashAlgorithm> fmt::Debug for SubmitError<'_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SubmitError")
            .field("kind", &self.kind)
            .field("ctx_id", &self.ctx.id)
            .finish()
    }
}

impl<A: HashAlgorithm> fmt::Display for SubmitError<'_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} context {}: {}", A::NAME, self.ctx.id, self.kind)
    }
}

impl<A: HashAlgorithm> core::error::Error for SubmitError<'_, A> {}

/// One message stream: state, partial block, length, status and an id.
///
/// A context lives in the caller's memory; a [`JobManager`] borrows it (and
/// the data) from `submit` until it hands it back. A stream in parts is
/// submitted `FIRST`, `UPDATE`..., `LAST`, each part once the context is
/// back:
///
/// ```
/// use digest::Digest;
/// use mbhash_core::{Flags, Sha256, Sha256Context, Sha256Manager};
///
/// let parts: [&[u8]; 3] = [b"hello ", b"multi-part ", b"world"];
/// let mut storage = Sha256Context::with_id(7);
/// let mut mgr = Sha256Manager::new();
/// let mut ctx = &mut storage;
/// for (i, part) in parts.iter().enumerate() {
///     let flags = match i {
///         0 => Flags::FIRST,
///         2 => Flags::LAST,
///         _ => Flags::UPDATE,
///     };
///     // The only job in flight comes back from `submit` or from `flush`.
///     ctx = match mgr.submit(ctx, part, flags).unwrap() {
///         Some(back) => back,
///         None => mgr.flush().expect("the job comes back"),
///     };
/// }
/// assert_eq!(ctx.id(), 7);
/// assert_eq!(ctx.digest().unwrap(), Sha256::digest(b"hello multi-part world")[..]);
/// ```
pub struct Context<A: HashAlgorithm> {
    state: StateOf<A>,
    /// Partial block between chunks, and the padding at the end.
    buf: BlockBuffer<A::Family>,
    total_len: u64,
    status: Status,
    error: Option<ErrorKind>,
    id: u64,
}

impl<A: HashAlgorithm> Clone for Context<A> {
    fn clone(&self) -> Self {
        Context {
            state: self.state,
            buf: self.buf.clone(),
            total_len: self.total_len,
            status: self.status,
            error: self.error,
            id: self.id,
        }
    }
}

impl<A: HashAlgorithm> fmt::Debug for Context<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("algorithm", &A::NAME)
            .field("id", &self.id)
            .field("status", &self.status)
            .field("total_len", &self.total_len)
            .field("error", &self.error)
            .finish()
    }
}

impl<A: HashAlgorithm> Default for Context<A> {
    fn default() -> Self {
        Self::new()
    }
}

impl<A: HashAlgorithm> Context<A> {
    /// A new context with id 0 and no open stream.
    pub fn new() -> Self {
        Self::with_id(0)
    }

    /// A new context carrying the caller's `id` (returned by [`Context::id`]).
    pub fn with_id(id: u64) -> Self {
        Context {
            state: A::IV,
            buf: BlockBuffer::new(),
            total_len: 0,
            status: Status::New,
            error: None,
            id,
        }
    }

    /// The caller's id.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Sets the caller's id.
    pub fn set_id(&mut self, id: u64) {
        self.id = id;
    }

    /// Where the context is in its life.
    pub fn status(&self) -> Status {
        self.status
    }

    /// The reason the last submit was refused, if it was.
    pub fn error(&self) -> Option<ErrorKind> {
        self.error
    }

    /// Bytes submitted to the stream so far.
    pub fn total_len(&self) -> u64 {
        self.total_len
    }

    /// The digest, once the stream is [`Status::Complete`].
    pub fn digest(&self) -> Option<A::Output> {
        (self.status == Status::Complete).then(|| {
            let mut out = A::ZERO_OUTPUT;
            <A::Family as Family>::write_digest(&self.state, out.as_mut());
            out
        })
    }

    /// Writes the digest to `out`, once the stream is [`Status::Complete`]
    /// (returns true); otherwise returns false and leaves `out` as it was.
    /// [`Context::digest`] without the digest value in between: what the C
    /// library writes to its caller's buffer.
    ///
    /// # Panics
    /// If `out` is not as long as the digest.
    #[inline]
    pub fn digest_into(&self, out: &mut [u8]) -> bool {
        assert_eq!(
            out.len(),
            A::ZERO_OUTPUT.as_ref().len(),
            "digest_into: a buffer of the digest's length"
        );
        if self.status != Status::Complete {
            return false;
        }
        <A::Family as Family>::write_digest(&self.state, out);
        true
    }

    /// Forgets any stream (including one abandoned in a dropped manager);
    /// keeps the id.
    pub fn reset(&mut self) {
        *self = Self::with_id(self.id);
    }

    /// Checks a submit without changing anything but `error`.
    fn check(&self, len: usize, flags: Flags) -> Result<(), ErrorKind> {
        if !flags.is_valid() {
            return Err(ErrorKind::InvalidFlags);
        }
        if self.status == Status::Processing {
            return Err(ErrorKind::AlreadyProcessing);
        }
        if !flags.is_first() && self.status != Status::Idle {
            return Err(ErrorKind::AlreadyCompleted);
        }
        let base = if flags.is_first() { 0 } else { self.total_len };
        base.checked_add(len as u64)
            .map(|_| ())
            .ok_or(ErrorKind::LengthOverflow)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// The context's buffered block (completed by this chunk) comes first.
    Prefix,
    /// Whole blocks straight from the caller's data.
    Middle,
    /// The padded tail in the context's buffer: blocks `from..to` (of 1 or 2)
    /// are still to be compressed.
    Suffix { from: u8, to: u8 },
    /// Nothing left to compress.
    Done,
}

/// A job of the manager: a context, the chunk's data still to read, and
/// where it is.
struct Lane<'a, A: HashAlgorithm> {
    ctx: &'a mut Context<A>,
    data: &'a [u8],
    stage: Stage,
    last: bool,
}

impl<A: HashAlgorithm> LaneJob<A::Family> for Lane<'_, A> {
    #[inline]
    fn blocks(&self) -> &[BlockOf<A>] {
        match self.stage {
            Stage::Prefix => &self.ctx.buf.blocks()[..1],
            Stage::Middle => <A::Family as Family>::split_blocks(self.data).0,
            Stage::Suffix { from, to } => &self.ctx.buf.blocks()[from as usize..to as usize],
            Stage::Done => &[],
        }
    }

    #[inline]
    fn advance(&mut self, n: usize) -> bool {
        match self.stage {
            Stage::Prefix => self.stage = Stage::Middle,
            Stage::Middle => self.data = &self.data[n * <A::Family as Family>::BLOCK_LEN..],
            Stage::Suffix { from, to } => {
                let from = from as usize + n;
                self.stage = if from < to as usize {
                    Stage::Suffix {
                        from: from as u8,
                        to,
                    }
                } else {
                    Stage::Done
                }
            }
            Stage::Done => {}
        }
        self.settle();
        self.stage == Stage::Done
    }
}

impl<A: HashAlgorithm> Lane<'_, A> {
    /// While in the middle stage with no whole block left, keeps the tail in
    /// the context's buffer and either pads it (LAST) or is done.
    #[inline]
    fn settle(&mut self) {
        if self.stage != Stage::Middle || self.data.len() >= <A::Family as Family>::BLOCK_LEN {
            return;
        }
        let ctx = &mut *self.ctx;
        let tail = core::mem::take(&mut self.data);
        // A tail is left only after the buffered partial block was
        // completed (or there was none): the buffer is empty.
        if !tail.is_empty() {
            ctx.buf.keep(tail);
        }
        self.stage = if self.last {
            let blocks = ctx.buf.pad(ctx.total_len).len();
            Stage::Suffix {
                from: 0,
                to: blocks as u8,
            }
        } else {
            Stage::Done
        };
    }
}

/// Packs independent hash jobs into the lanes of an engine.
///
/// See the [module documentation](self) for the model. The manager is a
/// fixed-size value (no heap): lane bookkeeping and the chaining states of
/// the jobs in flight.
///
/// ```
/// use mbhash_core::{Flags, Sha512Context, Sha512Manager, hash_many, alg};
///
/// let files: Vec<Vec<u8>> = (0..20u8).map(|i| vec![i; 1000 + 37 * i as usize]).collect();
/// let mut ctxs: Vec<Sha512Context> = (0..20).map(Sha512Context::with_id).collect();
/// let mut mgr = Sha512Manager::new();
/// let mut digests = vec![None; files.len()];
/// for (ctx, data) in ctxs.iter_mut().zip(&files) {
///     // A job that finished comes back (not necessarily this one).
///     if let Some(done) = mgr.submit(ctx, data, Flags::ENTIRE).unwrap() {
///         digests[done.id() as usize] = done.digest();
///     }
/// }
/// while let Some(done) = mgr.flush() {
///     digests[done.id() as usize] = done.digest();
/// }
/// let refs: Vec<&[u8]> = files.iter().map(Vec::as_slice).collect();
/// let want = hash_many::<alg::Sha512Alg>(&refs);
/// for (got, want) in digests.iter().zip(&want) {
///     assert_eq!(got.unwrap(), *want);
/// }
/// ```
pub struct JobManager<'a, A: HashAlgorithm> {
    engine: <A::Family as FamilyEngine>::Engine,
    /// The lanes the engine fills before a submit runs it, as a mask of
    /// the lowest ones.
    full: u32,
    lanes: FamilySet<A::Family, Lane<'a, A>>,
}

/// The manager and context aliases of every algorithm in the catalogue
/// ([`for_each_algorithm!`](crate::for_each_algorithm)).
macro_rules! aliases {
    ($($v:ident $t:ident $family:ident $hasher:ident $manager:ident $context:ident $name:literal $tag:literal;)*) => {$(
        #[doc = concat!("A ", $tag, " job manager.")]
        pub type $manager<'a> = JobManager<'a, crate::alg::$t>;
        #[doc = concat!("A ", $tag, " stream context.")]
        pub type $context = Context<crate::alg::$t>;
    )*};
}

crate::for_each_algorithm!(@names aliases);

impl<A: HashAlgorithm> Default for JobManager<'_, A> {
    fn default() -> Self {
        Self::new()
    }
}

impl<A: HashAlgorithm> fmt::Debug for JobManager<'_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JobManager")
            .field("algorithm", &A::NAME)
            .field("engine", &self.engine.name())
            .field("lanes", &self.engine.lanes())
            .field("in_flight", &self.in_flight())
            .finish()
    }
}

impl<'a, A: HashAlgorithm> JobManager<'a, A> {
    /// A manager on the configured engine: the one named by the family's
    /// environment variable (`MBHASH_SHA256_ENGINE`), else `auto`. A name
    /// that cannot be used also means `auto`: this never panics; use
    /// [`JobManager::try_new`] to see the error.
    pub fn new() -> Self {
        Self::with_engine(<<A::Family as FamilyEngine>::Engine as LaneEngine<
            A::Family,
        >>::configured())
    }

    /// A manager on the configured engine.
    ///
    /// # Errors
    /// If the environment variable names an unknown or unsupported engine.
    pub fn try_new() -> Result<Self, EngineError> {
        Ok(Self::with_engine(
            <<A::Family as FamilyEngine>::Engine as LaneEngine<A::Family>>::try_configured()?,
        ))
    }

    /// A manager on a given engine.
    ///
    /// ```
    /// use mbhash_core::engine::Sha256Engine;
    /// use mbhash_core::Sha256Manager;
    /// let engine = Sha256Engine::from_name("scalar").unwrap();
    /// let manager = Sha256Manager::with_engine(engine);
    /// assert_eq!(manager.lanes(), 1);
    /// ```
    #[inline(always)]
    pub fn with_engine(engine: <A::Family as FamilyEngine>::Engine) -> Self {
        let lanes = engine.lanes().clamp(
            1,
            <<A::Family as Family>::Lanes<Lane<'a, A>> as LaneCount<A::Family, Lane<'a, A>>>::N,
        );
        JobManager {
            engine,
            full: u32::MAX >> (32 - lanes),
            lanes: LaneSet::new(),
        }
    }

    /// The engine.
    pub fn engine(&self) -> &<A::Family as FamilyEngine>::Engine {
        &self.engine
    }

    /// Jobs the manager holds before a submit runs the kernels.
    pub fn lanes(&self) -> usize {
        self.engine.lanes()
    }

    /// Jobs held now.
    pub fn in_flight(&self) -> usize {
        self.lanes.in_flight()
    }

    /// True if no job is held.
    pub fn is_empty(&self) -> bool {
        self.lanes.is_empty()
    }

    /// Submits `data` as the next chunk of `ctx`'s stream.
    ///
    /// Returns `Ok(Some(done))` with a finished job (maybe another context
    /// than `ctx`), or `Ok(None)` if no job finished. A chunk that does not
    /// complete a block of a stream that goes on is buffered in the context,
    /// which comes back at once.
    ///
    /// # Errors
    /// Invalid flags, a context already processing, UPDATE/LAST on a context
    /// with no open stream, or a total length beyond `u64::MAX`. The context
    /// comes back inside the error and the manager is untouched.
    pub fn submit(
        &mut self,
        ctx: &'a mut Context<A>,
        data: &'a [u8],
        flags: Flags,
    ) -> Result<Option<&'a mut Context<A>>, SubmitError<'a, A>> {
        if let Err(kind) = ctx.check(data.len(), flags) {
            ctx.error = Some(kind);
            return Err(SubmitError { kind, ctx });
        }
        let state = if flags.is_first() {
            ctx.buf.clear();
            ctx.total_len = 0;
            A::IV
        } else {
            ctx.state
        };
        ctx.total_len += data.len() as u64;
        ctx.status = Status::Processing;
        ctx.error = None;

        let mut rest = data;
        let mut stage = Stage::Middle;
        if flags.is_last() && ctx.buf.fits_with_padding(rest.len()) {
            // A short last chunk goes into the buffer whole, so that the
            // message and its padding run in one kernel call (at most two
            // blocks are copied).
            ctx.buf.push(rest);
            rest = &[];
        } else {
            // Complete a buffered partial block first.
            rest = ctx.buf.fill(rest);
            if ctx.buf.take_block().is_some() {
                stage = Stage::Prefix;
            }
        }
        let mut lane = Lane {
            ctx,
            data: rest,
            stage,
            last: flags.is_last(),
        };
        lane.settle();
        if lane.stage == Stage::Done {
            // Nothing to compress (a buffered chunk): it comes back at once.
            lane.ctx.state = state;
            lane.ctx.status = Status::Idle;
            return Ok(Some(lane.ctx));
        }
        self.lanes.insert(state, lane);
        // Lanes fill lowest first and the set never holds more jobs than
        // `lane_count` (a full set runs before the submit returns), so the
        // set is full exactly when its low `lane_count` lanes are all busy:
        // a mask compare, not a population count.
        if self.lanes.busy() != self.full {
            return Ok(None);
        }
        Ok(self.lanes.run(&self.engine).map(|i| self.take(i)))
    }

    /// Runs the lanes until one job finishes and returns it; `None` when the
    /// manager holds no job.
    pub fn flush(&mut self) -> Option<&'a mut Context<A>> {
        self.lanes.run(&self.engine).map(|i| self.take(i))
    }

    /// Removes the done job in lane `i` and hands its context back.
    #[inline]
    fn take(&mut self, i: usize) -> &'a mut Context<A> {
        let (state, lane) = self.lanes.take(i);
        let ctx = lane.ctx;
        ctx.state = state;
        ctx.status = if lane.last {
            Status::Complete
        } else {
            Status::Idle
        };
        ctx
    }
}
