//! Gives `mbhash` the run path of a shared ISA-L peer library that
//! mbhash-peers found outside the system directories.

fn main() {
    println!("cargo::rerun-if-env-changed=DEP_MBHASH_PEERS_RPATH");
    if let Ok(dirs) = std::env::var("DEP_MBHASH_PEERS_RPATH") {
        for dir in dirs.split(';').filter(|d| !d.is_empty()) {
            println!("cargo::rustc-link-arg-bins=-Wl,-rpath,{dir}");
        }
    }
}
