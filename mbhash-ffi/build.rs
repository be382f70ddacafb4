//! Gives the Linux shared library its soname: `libmbhash.so.<major>` (for a
//! 0.y version, `libmbhash.so.0.<y>`, as cargo-c does), so that programs
//! linked against it record that name and `install.sh` can lay out
//! `libmbhash.so.<version>` with its links.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        let major = std::env::var("CARGO_PKG_VERSION_MAJOR").expect("set by cargo");
        let minor = std::env::var("CARGO_PKG_VERSION_MINOR").expect("set by cargo");
        let soname = if major == "0" {
            format!("libmbhash.so.0.{minor}")
        } else {
            format!("libmbhash.so.{major}")
        };
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
    }
}
