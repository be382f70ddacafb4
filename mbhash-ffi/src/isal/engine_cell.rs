//! The kernel-style library's engine of a family, looked up once per
//! process and kept in a static, so that neither `submit` nor `flush`
//! looks it up (without `std`, a lookup is CPU detection and a new plan). A
//! first caller's racers wait for it (a kernel-style caller does not fork).
//! With `std` the drop-in reads the core's default instead
//! (`Engine::configured_static`: one cell per default, without locks).

pub(crate) use spin::EngineCell;

use mbhash_core::engine::EngineError;

/// The cell of the kernel-style library.
mod spin {
    use super::EngineError;
    use core::cell::UnsafeCell;
    use core::mem::MaybeUninit;
    use core::sync::atomic::{AtomicU8, Ordering};

    const EMPTY: u8 = 0;
    const BUSY: u8 = 1;
    const READY: u8 = 2;

    /// A once-initialised `Result<E, EngineError>` in a static, without `std`.
    pub(crate) struct EngineCell<E> {
        state: AtomicU8,
        value: UnsafeCell<MaybeUninit<Result<E, EngineError>>>,
    }

    // SAFETY: the value is written once, by the thread that moved `state` from
    // EMPTY to BUSY, before `state` becomes READY (release); it is read only
    // after READY is seen (acquire), and never written again.
    unsafe impl<E: Sync + Send> Sync for EngineCell<E> {}

    impl<E> EngineCell<E> {
        /// An empty cell.
        pub(crate) const fn new() -> Self {
            EngineCell {
                state: AtomicU8::new(EMPTY),
                value: UnsafeCell::new(MaybeUninit::uninit()),
            }
        }

        /// The value, made by `init` on the first call (other threads wait for
        /// it; `init` must not panic, nor call back into this cell).
        pub(crate) fn get_or_init(
            &'static self,
            init: impl FnOnce() -> Result<E, EngineError>,
        ) -> &'static Result<E, EngineError> {
            let mut init = Some(init);
            loop {
                match self.state.load(Ordering::Acquire) {
                    // SAFETY: READY: written once and never again (see `Sync`).
                    READY => return unsafe { (*self.value.get()).assume_init_ref() },
                    EMPTY => {
                        if self
                            .state
                            .compare_exchange(EMPTY, BUSY, Ordering::Acquire, Ordering::Acquire)
                            .is_ok()
                        {
                            let value = (init.take().expect("initialised once"))();
                            // SAFETY: this thread owns the cell while BUSY: no
                            // other thread reads or writes the value.
                            unsafe { (*self.value.get()).write(value) };
                            self.state.store(READY, Ordering::Release);
                        }
                    }
                    _ => core::hint::spin_loop(),
                }
            }
        }
    }
}
