# SPDX-License-Identifier: BSD-2-Clause
# CMake toolchain file: cross-build cpctools for aarch64 (arm64) Linux,
# statically, with Debian's cross compiler.
#
#   cmake -S . -B build-aarch64 \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
#     -DCPCTOOLS_AARCH64_SYSROOT=/path/to/sysroot
#
# The compiler and C library come from the Debian packages
# gcc-aarch64-linux-gnu and libc6-dev-arm64-cross (/usr/aarch64-linux-gnu).
# CPCTOOLS_AARCH64_SYSROOT (a cache variable, or the environment variable
# of that name) is a directory into which the arm64 packages libpfm4-dev,
# libbsd-dev, libmd-dev and libjansson-dev (and, for cputrack's BPF
# engine, libbpf-dev, libelf-dev and zlib1g-dev) were unpacked with
# dpkg -x; the host needs no arm64 architecture for that.
# tests/hw/run-qemu-suite makes one. The BPF programs are compiled with
# the host's clang and bpftool. libmicrohttpd is left out (its static link needs GnuTLS's): such a
# build refuses --listen, saying why.
# By default everything links statically: the binaries run in a bare
# initramfs. With CPCTOOLS_AARCH64_STATIC=OFF they link against the
# sysroot's shared libraries, as Debian's arm64 packages ship them, for an
# arm64 .deb (scripts/cross-package): then libmicrohttpd-dev, libyaml-dev
# and libcrypt-dev give --listen, and the runtime libraries of every
# -dev package must be unpacked there too, for the linker to follow.

if(NOT DEFINED CPCTOOLS_AARCH64_STATIC AND DEFINED ENV{CPCTOOLS_AARCH64_STATIC})
  set(CPCTOOLS_AARCH64_STATIC "$ENV{CPCTOOLS_AARCH64_STATIC}")
endif()
if(NOT DEFINED CPCTOOLS_AARCH64_STATIC)
  set(CPCTOOLS_AARCH64_STATIC ON)
endif()
set(CPCTOOLS_AARCH64_STATIC "${CPCTOOLS_AARCH64_STATIC}" CACHE BOOL
    "Link the aarch64 build statically (OFF: against the sysroot's .so)")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES CPCTOOLS_AARCH64_STATIC)

# Static: archives only. The platform files reset the library suffixes
# after this file is read, so it is read again as the rules override,
# once the compiler is known, and only sets them then.
if(CMAKE_C_COMPILER_LOADED)
  if(CPCTOOLS_AARCH64_STATIC)
    set(CMAKE_FIND_LIBRARY_SUFFIXES .a)
  endif()
  return()
endif()
set(CMAKE_USER_MAKE_RULES_OVERRIDE "${CMAKE_CURRENT_LIST_FILE}")

# All-static: no libcpc.so/libpctx.so (the guest has no shared libraries).
if(CPCTOOLS_AARCH64_STATIC)
  set(CPCTOOLS_SHARED OFF CACHE BOOL
      "Build the shared libraries libcpc.so.1 and libpctx.so.1 too" FORCE)
endif()

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)

if(NOT CPCTOOLS_AARCH64_SYSROOT AND DEFINED ENV{CPCTOOLS_AARCH64_SYSROOT})
  set(CPCTOOLS_AARCH64_SYSROOT "$ENV{CPCTOOLS_AARCH64_SYSROOT}")
endif()
if(NOT CPCTOOLS_AARCH64_SYSROOT)
  message(FATAL_ERROR "aarch64 toolchain: set CPCTOOLS_AARCH64_SYSROOT to "
          "the directory the arm64 -dev packages were unpacked into")
endif()
get_filename_component(CPCTOOLS_AARCH64_SYSROOT "${CPCTOOLS_AARCH64_SYSROOT}"
                       ABSOLUTE)
set(CPCTOOLS_AARCH64_SYSROOT "${CPCTOOLS_AARCH64_SYSROOT}" CACHE PATH
    "Directory the arm64 -dev packages were unpacked into")
# try_compile() projects read this file again and need the same value.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES CPCTOOLS_AARCH64_SYSROOT)

# Libraries and headers only from the unpacked packages and the cross C
# library; programs (pkg-config, bats) from the host.
set(CMAKE_FIND_ROOT_PATH "${CPCTOOLS_AARCH64_SYSROOT}" /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

if(CPCTOOLS_AARCH64_STATIC)
  set(CMAKE_EXE_LINKER_FLAGS_INIT -static)
  set(PKG_CONFIG_ARGN --static)
else()
  # The libraries' own NEEDED entries, and the names a linker script
  # gives bare (libncursesw.so: "INPUT(libncursesw.so.6)", in /lib), are
  # found in the sysroot.
  set(usr_libs "${CPCTOOLS_AARCH64_SYSROOT}/usr/lib/aarch64-linux-gnu")
  set(libs "${CPCTOOLS_AARCH64_SYSROOT}/lib/aarch64-linux-gnu")
  set(sysroot_link "-L${usr_libs} -L${libs} -Wl,-rpath-link,${usr_libs}:${libs}")
  set(CMAKE_EXE_LINKER_FLAGS_INIT "${sysroot_link}")
  set(CMAKE_SHARED_LINKER_FLAGS_INIT "${sysroot_link}")
  set(CMAKE_MODULE_LINKER_FLAGS_INIT "${sysroot_link}")
endif()

# pkg-config answers for the unpacked arm64 packages, with the private
# libraries a static link needs (libbsd's -lmd).
set(ENV{PKG_CONFIG_LIBDIR}
    "${CPCTOOLS_AARCH64_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${CPCTOOLS_AARCH64_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${CPCTOOLS_AARCH64_SYSROOT}")
set(ENV{PKG_CONFIG_PATH} "")
