# SPDX-License-Identifier: BSD-2-Clause
# The Debian packages, made by CPack from the install rules (scripts/package
# configures, builds and runs it). One package per install component:
#
#   cpctools       bin      the commands, their man pages and completions,
#                           the cpustat exporter's systemd unit
#   libcpc1        libcpc   libcpc.so.1
#   libpctx1       libpctx  libpctx.so.1
#   cpctools-dev   dev      headers, libcpc.a and libpctx.a, the .so links,
#                           pkg-config files, the CMake package config, the
#                           library manual pages (man3)
#
# Each is named <package>_<version>_<arch>.deb; the version is
# project(VERSION). Debian's unrelated cpustat package shares no file with
# ours: scripts/package configures with CPCTOOLS_CPUSTAT_NAME=cpc-cpustat
# (README.md, "The Debian package", says why).
set(CPCTOOLS_PACKAGE_MAINTAINER "cpctools authors <cpctools@invalid>"
    CACHE STRING "Maintainer field of the Debian packages")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME cpctools)
set(CPACK_PACKAGE_VENDOR "the cpctools authors")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT ${CPCTOOLS_PACKAGE_MAINTAINER})
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
# cmake/package-prebuild.cmake: copyright files, README.Debian, gzip -9n.
set(CPACK_PRE_BUILD_SCRIPTS ${PROJECT_SOURCE_DIR}/cmake/package-prebuild.cmake)
set(CPACK_CPCTOOLS_SOURCE_DIR ${PROJECT_SOURCE_DIR})

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL bin dev)
if(CPCTOOLS_SHARED)
  list(APPEND CPACK_COMPONENTS_ALL libcpc libpctx)
endif()

# Each package's description, summary line first, is its component's
# (CPACK_COMPONENT_<X>_DESCRIPTION, which CPack indents for the control
# file); CPACK_PACKAGE_DESCRIPTION_SUMMARY is left unset, or CPack would
# put it before every one of them.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${CPCTOOLS_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# A shlibs file for the library packages: programs linked with libcpc.so.1
# depend on libcpc1 (>= the version they were built with).
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Debug symbols in <package>-dbgsym_<version>_<arch>.ddeb, as Debian does.
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
set(exact "(= ${PROJECT_VERSION})")

set(CPACK_DEBIAN_BIN_PACKAGE_NAME cpctools)
set(CPACK_DEBIAN_BIN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_BIN_PACKAGE_RECOMMENDS "bash-completion")
set(CPACK_COMPONENT_BIN_DESCRIPTION
"Solaris cputrack and cpustat for Linux performance counters
cputrack counts hardware, software and tracepoint events per process and
per thread of a command or a running process, interval by interval,
following threads, forks and execs. cpustat counts events per CPU,
system-wide. Both keep the options, output and exit codes of their
Solaris originals and add CSV and JSON output.

The CPU-bound cpustat is installed as cpc-cpustat, so that it never
shadows the unrelated Debian package cpustat.")

set(CPACK_DEBIAN_LIBCPC_PACKAGE_NAME libcpc1)
set(CPACK_DEBIAN_LIBCPC_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_LIBCPC_PACKAGE_DEPENDS "libpctx1 ${exact}")
# dpkg-shlibdeps finds libpctx.so.1 here; its package is named by hand.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS
    ${PROJECT_BINARY_DIR}/libpctx)
set(CPACK_COMPONENT_LIBCPC_DESCRIPTION
"Solaris CPU performance counter library (libcpc) for Linux
The libcpc API of Solaris (cpc_open, cpc_set_create, cpc_bind_curlwp,
cpc_bind_pctx, cpc_bind_cpu, cpc_set_sample, the v1 API, ...) on Linux
perf_event_open(2), with libpfm4 for event names.")

set(CPACK_DEBIAN_LIBPCTX_PACKAGE_NAME libpctx1)
set(CPACK_DEBIAN_LIBPCTX_PACKAGE_SECTION libs)
set(CPACK_COMPONENT_LIBPCTX_DESCRIPTION
"Solaris process context library (libpctx) for Linux
The libpctx API of Solaris (pctx_create, pctx_capture, pctx_set_events,
pctx_run, ...) on Linux ptrace(2): callbacks at every thread creation and
exit, fork, exec and exit of a process, and at fixed ticks.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME cpctools-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libpfm4-dev, libbsd-dev")
if(CPCTOOLS_SHARED)
  string(PREPEND CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
         "libcpc1 ${exact}, libpctx1 ${exact}, ")
endif()
set(CPACK_COMPONENT_DEV_DESCRIPTION
"Solaris libcpc and libpctx for Linux: development files
Headers (libcpc.h, libpctx.h), static libraries, pkg-config files
(cpctools-libcpc, cpctools-libpctx), a CMake package config
(find_package(cpctools)) and the library manual pages.")

include(CPack)
