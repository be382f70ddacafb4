#!/bin/sh
# Builds and installs the mbhash C library: include/mbhash.h, libmbhash.a,
# libmbhash.so (with its soname links), the pkg-config file mbhash.pc, and
# the isa-l_crypto compatible headers include/isa-l_crypto/*.h and the ISA-L
# CRC compatible headers include/isa-l/crc.h, crc64.h.
#
#   mbhash-ffi/install.sh [--prefix DIR] [--libdir DIR] [--includedir DIR]
#                         [--destdir DIR] [--lib-dir DIR]
#
#   --prefix DIR      install under DIR (default /usr/local)
#   --libdir DIR      libraries and pkgconfig/ go here (default PREFIX/lib)
#   --includedir DIR  the header goes here (default PREFIX/include)
#   --destdir DIR     stage under DIR, for packaging (paths inside the files
#                     stay as if installed in PREFIX)
#   --lib-dir DIR     do not build: take cargo's libmbhash_ffi.a and
#                     libmbhash_ffi.so from DIR (e.g. target/debug); by
#                     default `cargo build --release`
#   --version V       the version to record (default: from `cargo pkgid`)
#   --no-rpath        no run path in mbhash.pc's Libs (see below)
#
# Programs find the shared library at run time: for a LIBDIR outside the
# dynamic linker's default directories, mbhash.pc's `Libs` carries
# `-Wl,-rpath,LIBDIR`, so `cc prog.c $(pkg-config --cflags --libs mbhash)`
# gives a program that starts without LD_LIBRARY_PATH. For a default
# directory (/usr/local/lib, ...) run `ldconfig` after installing as root.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
prefix=/usr/local
libdir=
includedir=
destdir=
from=
version=
rpath=yes

while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix=$2; shift 2 ;;
        --libdir) libdir=$2; shift 2 ;;
        --includedir) includedir=$2; shift 2 ;;
        --destdir) destdir=$2; shift 2 ;;
        --lib-dir) from=$2; shift 2 ;;
        --version) version=$2; shift 2 ;;
        --no-rpath) rpath=no; shift ;;
        -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown argument: $1" >&2; exit 2 ;;
    esac
done
libdir=${libdir:-$prefix/lib}
includedir=${includedir:-$prefix/include}

if [ -z "$from" ]; then
    cargo build --release -p mbhash-ffi --manifest-path "$root/Cargo.toml"
    from=${CARGO_TARGET_DIR:-$root/target}/release
fi

# The version, and the soname build.rs gave the shared library.
if [ -z "$version" ]; then
    version=$(cargo pkgid -p mbhash-ffi --manifest-path "$root/Cargo.toml" | sed 's/.*[#@]//')
fi
major=${version%%.*}
minor=${version#*.}
minor=${minor%%.*}
if [ "$major" = 0 ]; then soname=libmbhash.so.0.$minor; else soname=libmbhash.so.$major; fi

install -d "$destdir$libdir/pkgconfig" "$destdir$includedir" "$destdir$includedir/isa-l_crypto" \
    "$destdir$includedir/isa-l"
install -m 644 "$here/include/mbhash.h" "$destdir$includedir/mbhash.h"
install -m 644 "$here"/include/isa-l_crypto/*.h "$destdir$includedir/isa-l_crypto/"
install -m 644 "$here"/include/isa-l/*.h "$destdir$includedir/isa-l/"
install -m 644 "$from/libmbhash_ffi.a" "$destdir$libdir/libmbhash.a"
install -m 755 "$from/libmbhash_ffi.so" "$destdir$libdir/libmbhash.so.$version"
ln -sf "libmbhash.so.$version" "$destdir$libdir/$soname"
ln -sf "$soname" "$destdir$libdir/libmbhash.so"
# The dynamic linker's default directories need no run path.
case "$libdir" in
    /lib | /lib64 | /usr/lib | /usr/lib64 | /lib/*-linux-gnu | /usr/lib/*-linux-gnu \
    | /usr/local/lib) rpath=no ;;
esac
if [ "$rpath" = yes ]; then rpath_flag="-Wl,-rpath,\${libdir} "; else rpath_flag=; fi
sed -e "s|@PREFIX@|$prefix|" -e "s|@LIBDIR@|$libdir|" -e "s|@RPATH@|$rpath_flag|" \
    -e "s|@INCLUDEDIR@|$includedir|" -e "s|@VERSION@|$version|" \
    "$here/mbhash.pc.in" > "$destdir$libdir/pkgconfig/mbhash.pc"
echo "installed mbhash $version (soname $soname) to $destdir$prefix"
if [ "$rpath" = no ] && [ -z "$destdir" ]; then
    echo "run ldconfig (as root) so that programs find $soname in $libdir"
fi
