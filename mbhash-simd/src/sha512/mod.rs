//! SHA-512 family compression kernels (FIPS 180-4, section 6.4).
//!
//! Placeholder: kernels arrive with the SHA-512 work. The contract will
//! mirror [`crate::sha256`]: 128-byte blocks, eight `u64` words of state.
