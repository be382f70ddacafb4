//! mbhash core (under construction).

pub mod crc32c;
