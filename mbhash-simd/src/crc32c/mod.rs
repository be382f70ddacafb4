//! CRC32C (Castagnoli) kernels.
//!
//! Placeholder: kernels arrive with the CRC32C work.
