//! C ABI for mbhash (arrives with the C API work).
