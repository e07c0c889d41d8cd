# SPDX-License-Identifier: BSD-2-Clause
# Run by `cmake --install` before cpustat's files are installed, with
# CPUSTAT_NAME, CPUSTAT_BINDIR and CPUSTAT_BASH_COMPLETION (the last two
# relative to the prefix) set.
#
# Debian's unrelated cpustat package (a /proc CPU utilisation monitor)
# installs /usr/sbin/cpustat and a bash completion named cpustat. An
# install must never overwrite that completion, and must say so when our
# cpustat and another one are both reachable by the same name.
set(prefix "${CMAKE_INSTALL_PREFIX}")
set(completion "$ENV{DESTDIR}${prefix}/${CPUSTAT_BASH_COMPLETION}/${CPUSTAT_NAME}")
if(EXISTS "${completion}")
  file(READ "${completion}" text)
  if(NOT text MATCHES "cpctools")
    message(FATAL_ERROR
      "${completion} belongs to another program (Debian's cpustat "
      "package?) and would be overwritten. Install with another prefix, "
      "or configure with -DCPCTOOLS_CPUSTAT_NAME=cpc-cpustat.")
  endif()
endif()

# A staged install (DESTDIR, packaging) is not the running system.
if("$ENV{DESTDIR}" STREQUAL "")
  # Merged /usr: /bin/x and /usr/bin/x are one file; compare real paths.
  file(REAL_PATH "${prefix}/${CPUSTAT_BINDIR}/${CPUSTAT_NAME}" ours)
  set(seen "${ours}")
  foreach(dir /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin)
    if(NOT EXISTS "${dir}/${CPUSTAT_NAME}")
      continue()
    endif()
    file(REAL_PATH "${dir}/${CPUSTAT_NAME}" other)
    # list(FIND), not IN_LIST: an install script runs under the old
    # policies, where IN_LIST is an error (CMP0057).
    list(FIND seen "${other}" at)
    if(at EQUAL -1)
      list(APPEND seen "${other}")
      message(NOTICE
        "note: another ${CPUSTAT_NAME} is installed, ${dir}/${CPUSTAT_NAME}; "
        "the command name runs whichever comes first in PATH (type -a "
        "${CPUSTAT_NAME}). Run either one by its full path, or install "
        "ours as cpc-cpustat (-DCPCTOOLS_CPUSTAT_NAME=cpc-cpustat).")
    endif()
  endforeach()
endif()
