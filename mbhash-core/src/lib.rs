//! mbhash core (under construction).
